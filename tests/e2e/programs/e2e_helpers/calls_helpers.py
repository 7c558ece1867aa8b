"""Helpers for calls_identity.py: functions whose globals are this module's, not the caller's."""
import math

SCALE = 3.0


def scale(x):
    return x * SCALE


def norm(x, y):
    return math.sqrt(scale(x) * scale(x) + y * y)
