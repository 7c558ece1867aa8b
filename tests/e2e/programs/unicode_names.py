# expect: compiled
"""Non-ASCII identifiers (common in scientific code: α, β, σ, Δt)."""


def moments(xs):
    μ = 0.0
    σ2 = 0.0
    for i in range(len(xs)):  # mg: compiled
        μ += xs[i]
        σ2 += xs[i] * xs[i]
    μ /= len(xs)
    return μ, σ2 / len(xs) - μ * μ


def axpy(α, x, y):
    for i in range(len(x)):  # mg: compiled
        y[i] = α * x[i] + y[i]
    return y


def euler(n, Δt):
    θ = 1.0
    ω = 0.0
    for k in range(n):  # mg: compiled
        ω -= θ * Δt
        θ += ω * Δt
    return θ, ω


def blend(α, β, γ):
    for i in range(len(α)):  # mg: compiled
        γ[i] = α[i] * 0.25 + β[i] * 0.75
    return γ


print(repr(moments([1.0, 2.0, 4.0, 8.0])))
print(repr(axpy(2.5, [1.0, -1.0, 0.5], [0.0, 1.0, 2.0])))
print(repr(euler(50, 0.1)))
print(repr(blend([1.0, 2.0], [3.0, 5.0], [0.0, 0.0])))
