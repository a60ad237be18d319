import Platform

/// A small, fast, seeded random number generator, so simulations, noise models, generated
/// sample data and test sweeps are repeatable (SplitMix64: Steele, Lea & Flood 2014,
/// "Fast splittable pseudorandom number generators", OOPSLA).
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    package var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly distributed value in `lo..<hi`.
    package mutating func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &self) }

    /// A standard normal deviate (mean 0, standard deviation 1), by the Box–Muller transform.
    package mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
