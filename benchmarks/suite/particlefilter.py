"""Rodinia particlefilter: track a disk moving across a small noisy video.  Every frame
each particle moves by a noisy motion model, gets the likelihood of the pixels under
the disk at its position, its weight is updated and normalised, and the particles are
resampled through the cumulative sum of the weights.  The noise comes from Rodinia's
own per-particle linear congruential generator (integer arithmetic, so the run is
deterministic under every system)."""
import math

from common import Timer, arguments, generator, report, run

SIZES = {"small": {"size": 64, "frames": 6, "particles": 1000},
         "medium": {"size": 128, "frames": 10, "particles": 4000},
         "large": {"size": 128, "frames": 10, "particles": 100000}}

# The weights are summed (normalisation, estimate) by float reductions that megaguards
# may reassociate in its default mode, so the checksum may differ in the last bits.
TOLERANCE = 1e-9

RADIUS = 5
# Rodinia's generator: glibc's LCG constants
LCG_A = 1103515245
LCG_C = 12345
LCG_M = 2147483647


def disk_offsets(radius):
    """The (dx, dy) offsets of the pixels inside a disk of the given radius."""
    return [[dx, dy] for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1)
            if dx * dx + dy * dy <= radius * radius]


def make_video(size, frames, random):
    """A bright disk (228) on a dark background (100) moving by (+1, -2) per frame, with
    Gaussian noise."""
    start = size // 2
    return [[[(228.0 if (x - start - k) ** 2 + (y - start + 2 * k) ** 2 <= RADIUS * RADIUS
               else 100.0) + 5.0 * random.gauss(0.0, 1.0) for y in range(size)]
             for x in range(size)] for k in range(frames)]


def uniform(seed, index):
    """Rodinia's randu: advance the particle's LCG and scale it to [0, 1)."""
    seed[index] = (LCG_A * seed[index] + LCG_C) % LCG_M
    return abs(seed[index] / LCG_M)


def normal(seed, index):
    """Rodinia's randn: Box-Muller from two uniforms."""
    u = uniform(seed, index)
    v = uniform(seed, index)
    return math.sqrt(-2.0 * math.log(u + 1e-300)) * math.cos(2.0 * math.pi * v)


def move(x, y, seed, n):
    for i in range(n):
        x[i] += 1.0 + 5.0 * normal(seed, i)
        y[i] += -2.0 + 2.0 * normal(seed, i)


def likelihood_of(frame, x, y, offsets, likelihood, n, size):
    count = len(offsets)
    for i in range(n):
        cx = int(math.floor(x[i] + 0.5))
        cy = int(math.floor(y[i] + 0.5))
        total = 0.0
        for j in range(count):
            px = min(abs(cx + offsets[j][0]), size - 1)
            py = min(abs(cy + offsets[j][1]), size - 1)
            pixel = frame[px][py]
            total += ((pixel - 100.0) ** 2 - (pixel - 228.0) ** 2) / 50.0
        likelihood[i] = total / count


def update_weights(weights, likelihood, n):
    for i in range(n):
        weights[i] = weights[i] * math.exp(likelihood[i])


def normalise(weights, n):
    total = 0.0
    for i in range(n):
        total += weights[i]
    for i in range(n):
        weights[i] = weights[i] / total


def cumulative(weights, cdf, n):
    cdf[0] = weights[0]
    for i in range(1, n):
        cdf[i] = cdf[i - 1] + weights[i]


def resample(x, y, cdf, new_x, new_y, start, n):
    for j in range(n):
        u = start + j / n
        chosen = n - 1
        for i in range(n):
            if cdf[i] >= u:
                chosen = i
                break
        new_x[j] = x[chosen]
        new_y[j] = y[chosen]


def track(video, x, y, seed, n, size):
    offsets = disk_offsets(RADIUS)
    weights = [1.0 / n] * n
    likelihood = [0.0] * n
    cdf = [0.0] * n
    new_x = [0.0] * n
    new_y = [0.0] * n
    estimates = []
    for k in range(1, len(video)):
        move(x, y, seed, n)
        likelihood_of(video[k], x, y, offsets, likelihood, n, size)
        update_weights(weights, likelihood, n)
        normalise(weights, n)
        estimate_x = 0.0
        estimate_y = 0.0
        for i in range(n):
            estimate_x += x[i] * weights[i]
            estimate_y += y[i] * weights[i]
        estimates.append([estimate_x, estimate_y])
        cumulative(weights, cdf, n)
        start = uniform(seed, 0) / n
        resample(x, y, cdf, new_x, new_y, start, n)
        for i in range(n):
            x[i] = new_x[i]
            y[i] = new_y[i]
            weights[i] = 1.0 / n
    return estimates


def make_input(parameters):
    size, frames, n = parameters["size"], parameters["frames"], parameters["particles"]
    random = generator("particlefilter")
    video = make_video(size, frames, random)
    seed = [random.randrange(1, LCG_M) for _ in range(n)]
    x = [float(size // 2)] * n
    y = [float(size // 2)] * n
    return {"video": video, "x": x, "y": y, "seed": seed, "n": n, "size": size}


def work(parameters):
    """Per tracked frame: the disk's pixels per particle (likelihood) and about n^2 / 2
    cdf entries scanned by the resampling."""
    n = parameters["particles"]
    return (parameters["frames"] - 1) * (n * len(disk_offsets(RADIUS)) + n * n / 2.0)


def checksum(estimates, x, y):
    return math.fsum(e[0] + e[1] for e in estimates) + math.fsum(x) + math.fsum(y)


def main():
    size_name, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    x, y = inputs["x"], inputs["y"]
    timer = Timer()
    timer.start()
    estimates = track(inputs["video"], x, y, inputs["seed"], inputs["n"], inputs["size"])
    timer.stop()
    report(checksum(estimates, x, y), timer)


if __name__ == "__main__":
    run(main)
