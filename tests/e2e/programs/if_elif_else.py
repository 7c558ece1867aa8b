# expect: compiled
"""if / elif / else chains, nested conditions, early assignments."""


def grade(scores, out):
    for i in range(len(scores)):  # mg: compiled
        s = scores[i]
        if s >= 90:
            g = 4
        elif s >= 80:
            g = 3
        elif s >= 70:
            g = 2
        elif s >= 60:
            g = 1
        else:
            g = 0
        if g > 2:
            if s % 2 == 0:
                g += 10
            else:
                g -= 10
        out[i] = g


scores = [95, 85, 72, 64, 10, 100, 90, 89, 60, 59, 91]
out = [0] * len(scores)
grade(scores, out)
print(repr(out))

x = 0.0
for i in range(20):  # mg: compiled
    if i < 5:
        x += 1.5
    elif i < 10 and x > 3:
        x *= 1.1
    elif not i % 3:
        x -= 2.0
    else:
        pass
print(repr(x))
