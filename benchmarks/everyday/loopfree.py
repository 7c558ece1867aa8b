"""A script without a loop: reads its arguments, computes a few values, prints.
What it measures is start-up alone.

    python loopfree.py [NAME]
"""
import math
import sys


def describe(name, radius):
    area = math.pi * radius * radius
    return "%s: radius %.2f, area %.3f" % (name, radius, area)


name = sys.argv[1] if len(sys.argv) > 1 else "circle"
text = describe(name, 2.5)
print(text)
print("checksum=%d:%s" % (len(text), text.split(":")[0]))
