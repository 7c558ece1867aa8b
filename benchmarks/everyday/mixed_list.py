"""Readings typed in by hand, so the list mixes ints (20) and floats (20.5), and a
loop that counts and totals the readings above a threshold, called once per
threshold of a sweep.

    python mixed_list.py [READINGS] [THRESHOLDS]      (default 300000 readings, 120 thresholds)
"""
import sys


def above(readings, threshold):
    count = 0
    total = 0.0
    for r in readings:
        if r > threshold:
            count += 1
            total += r
    return count, total


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    thresholds = int(sys.argv[2]) if len(sys.argv) > 2 else 120
    readings = []
    for k in range(size):
        value = (k * 37) % 41
        readings.append(value if k % 3 else value + 0.5)
    checksum = 0.0
    for t in range(thresholds):
        count, total = above(readings, t)
        checksum += count + total / 1024
    print("checksum=%r" % checksum)


main()
