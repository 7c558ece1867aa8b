# expect: compiled
"""Strings and bytes read like arrays (issue 29, item 4: edit distance and LCS in dynamic
programming, counting characters): a str's characters are held as their code points and
compare with each other and with one-character constants; ``c in "aeiou"``; ``ord(c)``; a
character kept after the loop is a one-character str again; bytes and bytearray give their
ints.  Writing into them, a character used as a number, joined or tested for truth, and a
character compared with an int stay in CPython, whose results and errors are the program's."""


def edit_distance(a, b):
    m, n = len(a), len(b)
    d = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        d[i][0] = i
    for j in range(n + 1):
        d[0][j] = j
    for i in range(1, m + 1):  # mg: compiled
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
    return d[m][n]


def common_subsequence(a, b):
    m, n = len(a), len(b)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):  # mg: compiled
        for j in range(1, n + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table[m][n]


def vowels_and_last(text):
    count = 0
    last = "?"
    for i in range(len(text)):  # mg: compiled
        if text[i] in "aeiou" and text[i] not in "u":
            count += 1
            last = text[i]
    return count, last


def polynomial_hash(text):
    h = 0
    for i in range(len(text)):  # mg: compiled
        h = (h * 31 + ord(text[i])) % 1000000007
    return h


def ordered(text, out):
    for i in range(len(out)):  # mg: compiled
        out[i] = text[i] < text[i + 1] or text[i] == "é"
    return out


def each_character(text):
    upper = 0
    for ch in text:  # mg: compiled
        if "A" <= ch <= "Z":
            upper += 1
    return upper, ch


def byte_sum(data):
    total = 0
    for i in range(len(data)):  # mg: compiled
        total += data[i] * (i % 7)
    return total


def mutate(text):
    for i in range(len(text)):  # mg: fallback "is a str, which the loop indexes twice or assigns into"
        text[i] = "x"


def as_number(text, out):
    for i in range(len(text)):  # mg: fallback "'+' on str and int"
        out[i] = text[i] + 1


def truth(text):
    n = 0
    for i in range(len(text)):  # mg: fallback "the truth value of a character"
        if text[i]:
            n += 1
    return n


def against_int(text):
    n = 0
    for i in range(len(text)):  # mg: fallback "only compares with another character"
        if text[i] == 97:
            n += 1
    return n


def run(label, function, *arguments):
    try:
        print(label, repr(function(*arguments)))
    except Exception as error:
        print(label, type(error).__name__, error)


run("edit", edit_distance, "kitten sitting on the mat" * 3, "sitting kitten in the hat" * 3)
run("edit unicode", edit_distance, "naïve café ☕", "naive cafe ☕☕")
run("lcs", common_subsequence, "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA" * 2, "GTCGTTCGGAATGCCGTTGCTCTGTAAA" * 2)
run("vowels", vowels_and_last, "the quick brown fox jumps over the lazy dog")
run("vowels none", vowels_and_last, "rhythm")
run("hash", polynomial_hash, "the quick brown fox 🦊 jumps" * 40)
run("ordered", ordered, "baézZé", [False] * 5)
run("ordered short", ordered, "b", [False])
run("each", each_character, "Hello World ABC")
run("bytes", byte_sum, bytes(range(200)) * 3)
run("bytearray", byte_sum, bytearray(b"megaguards" * 20))
run("mutate", mutate, "abc")
run("as number", as_number, "abc", [0, 0, 0])
run("truth", truth, "a\x00b")
run("against int", against_int, "abca")
run("index error", polynomial_hash, None)
