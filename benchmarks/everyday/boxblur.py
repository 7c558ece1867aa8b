"""A 3x3 box blur of a grey-level image held as a list of lists of ints, pixel by
pixel, as image-processing coursework writes it: the new image is built row by
row with ``append``, and each pixel sums its 3x3 window with two small loops.

    python boxblur.py [SIDE] [PASSES]      (default 700 x 700, 2 passes)

Border pixels are copied.
"""
import sys


def blur(image):
    height = len(image)
    width = len(image[0])
    result = []
    for i in range(height):
        row = []
        for j in range(width):
            if i == 0 or j == 0 or i == height - 1 or j == width - 1:
                row.append(image[i][j])
            else:
                total = 0
                for di in range(-1, 2):
                    for dj in range(-1, 2):
                        total += image[i + di][j + dj]
                row.append(total // 9)
        result.append(row)
    return result


def main():
    side = int(sys.argv[1]) if len(sys.argv) > 1 else 700
    passes = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    image = [[(i * 31 + j * 17 + (i * j) % 23) % 256 for j in range(side)] for i in range(side)]
    for _ in range(passes):
        image = blur(image)
    checksum = 0
    for i in range(side):
        for j in range(side):
            checksum += image[i][j] * (i + 1) + j
    print("checksum=%d" % checksum)


main()
