"""Rodinia nn (nearest neighbour): the Euclidean distance from a query point (latitude,
longitude) to every record of a list of hurricane positions, then the k records nearest to
it, picked by repeated selection of the smallest remaining distance as Rodinia's CPU
version keeps its k best.

Under megaguards the distances compile (parallel); each selection scan compiles
sequentially (its running minimum carries from one record to the next); the loop over the
k picks stays in CPython (``chosen.append``)."""
import math

from common import Timer, arguments, generator, report, run

SIZES = {"small": {"records": 20000, "k": 10}, "medium": {"records": 200000, "k": 10},
         "large": {"records": 5 * 42764 * 10, "k": 10}}

QUERY_LATITUDE = 30.0
QUERY_LONGITUDE = 90.0


def distances(latitudes, longitudes, result, count, latitude, longitude):
    for i in range(count):
        dlat = latitudes[i] - latitude
        dlon = longitudes[i] - longitude
        result[i] = math.sqrt(dlat * dlat + dlon * dlon)


def nearest(distance, count, k):
    """Indices of the k smallest distances, nearest first (ties: the lower index)."""
    chosen = []
    taken = [False] * count
    for j in range(k):
        best = math.inf
        best_index = -1
        for i in range(count):
            if not taken[i] and distance[i] < best:
                best = distance[i]
                best_index = i
        taken[best_index] = True
        chosen.append(best_index)
    return chosen


def make_input(parameters):
    count = parameters["records"]
    random = generator("nn")
    # Rodinia's hurricane records: latitudes 7..70, longitudes 0..358
    latitudes = [7.0 + 63.0 * random.random() for _ in range(count)]
    longitudes = [358.0 * random.random() for _ in range(count)]
    return {"latitudes": latitudes, "longitudes": longitudes, "count": count, "k": parameters["k"]}


def work(parameters):
    """Record visits: once for the distances, once per selection scan."""
    return parameters["records"] * (parameters["k"] + 1)


def checksum(distance, chosen):
    return math.fsum(distance[i] for i in chosen) + sum(chosen)


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    count, k = inputs["count"], inputs["k"]
    distance = [0.0] * count
    timer = Timer()
    timer.start()
    distances(inputs["latitudes"], inputs["longitudes"], distance, count, QUERY_LATITUDE,
              QUERY_LONGITUDE)
    chosen = nearest(distance, count, k)
    timer.stop()
    report(checksum(distance, chosen), timer)


if __name__ == "__main__":
    run(main)
