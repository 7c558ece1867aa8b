"""The sieve of Eratosthenes from a first programming course: a list of flags and a
``for`` loop that crosses out the multiples of every prime.

    python sieve.py [LIMIT]      (default 10**7)
"""
import sys


def sieve(limit):
    is_prime = [True] * (limit + 1)
    is_prime[0] = False
    is_prime[1] = False
    p = 2
    while p * p <= limit:
        if is_prime[p]:
            for multiple in range(p * p, limit + 1, p):
                is_prime[multiple] = False
        p += 1
    return is_prime


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 10**7
    is_prime = sieve(limit)
    count = 0
    last = 0
    for k in range(limit + 1):
        if is_prime[k]:
            count += 1
            last = k
    print("checksum=%d:%d" % (count, last))


main()
