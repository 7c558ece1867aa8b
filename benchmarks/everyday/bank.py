"""A small bank simulation in object-oriented style: accounts are objects in a
dict, customers move money with methods, every month pays interest.  No loop here
works on numbers in lists only, so none can be compiled.

    python bank.py [ACCOUNTS] [MONTHS]      (default 2000 accounts, 60 months)
"""
import random
import sys


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, number, owner, balance):
        self.number = number
        self.owner = owner
        self.balance = balance          # in cents
        self.history = []

    def deposit(self, amount):
        self.balance += amount
        self.history.append(("in", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(self.number)
        self.balance -= amount
        self.history.append(("out", amount))


class SavingsAccount(Account):
    rate_per_mille = 3

    def month_end(self):
        interest = self.balance * self.rate_per_mille // 1000
        if interest:
            self.deposit(interest)


class Bank:
    def __init__(self):
        self.accounts = {}
        self.refused = 0

    def open(self, owner, balance, savings):
        number = "ACC%05d" % len(self.accounts)
        kind = SavingsAccount if savings else Account
        self.accounts[number] = kind(number, owner, balance)
        return number

    def transfer(self, source, target, amount):
        try:
            self.accounts[source].withdraw(amount)
        except InsufficientFunds:
            self.refused += 1
            return False
        self.accounts[target].deposit(amount)
        return True

    def month_end(self):
        for account in self.accounts.values():
            if isinstance(account, SavingsAccount):
                account.month_end()

    def richest(self, count):
        ordered = sorted(self.accounts.values(), key=lambda a: (-a.balance, a.number))
        return [a.owner for a in ordered[:count]]


def main():
    accounts = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    months = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = random.Random(2024)
    bank = Bank()
    numbers = [bank.open("customer-%d" % k, rng.randrange(0, 500000), k % 3 == 0) for k in range(accounts)]
    for month in range(months):
        for _ in range(accounts * 5):
            source, target = rng.choice(numbers), rng.choice(numbers)
            bank.transfer(source, target, rng.randrange(100, 20000))
        bank.month_end()
    total = sum(account.balance for account in bank.accounts.values())
    moves = sum(len(account.history) for account in bank.accounts.values())
    print("checksum=%d:%d:%d:%s" % (total, moves, bank.refused, ",".join(bank.richest(3))))


main()
