# expect: compiled
"""Lists built with append inside compiled loops: a cross-shaped average's rows (each row a new
list the loop builds, appended whole to the result), the values above a threshold (ints and
floats, each keeping its class), and flags."""


def cross(image):
    height, width = len(image), len(image[0])
    result = []
    for i in range(height):  # mg: compiled
        row = []
        for j in range(width):
            if 0 < i < height - 1 and j != 0 and j != width - 1:
                centre = 4 * image[i][j]
                row.append((centre + image[i - 1][j] + image[i + 1][j] + image[i][j - 1] + image[i][j + 1]) // 8)
            else:
                row.append(image[i][j])
        result.append(row)
    return result


def above(values, threshold, found, flags):
    for i in range(len(values)):  # mg: compiled
        if values[i] > threshold:
            found.append(values[i] if i % 2 else values[i] / 2)
        flags.append(values[i] == threshold)
    return found, flags


image = [[(i * 31 + j * 17) % 256 for j in range(9)] for i in range(7)]
print(cross(cross(image)))
print(above([3, 1.5, 8, 2, 9.25, -1, 4], 2, [0.5], []))
