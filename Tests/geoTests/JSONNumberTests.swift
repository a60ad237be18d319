import Foundation
@testable import GeoCLI
import GeoBase
import GeoCore
import Testing

/// `FixedDecimal` must print exactly what C's `%.*f` prints (the oracle: Foundation's
/// `String(format:)`, which formats through the C library).
private func formatted(_ value: Double, _ decimals: Int) -> String? {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: FixedDecimal.capacity) { buffer in
        FixedDecimal.format(value, decimals: decimals, into: buffer).map { String(decoding: UnsafeBufferPointer(rebasing: buffer[..<$0]), as: UTF8.self) }
    }
}

@Test func fixedDecimal_exactTies_roundToEvenAsPrintf() {
    // Binary-exact halves: printf rounds the exact value, ties to even.
    let cases: [(Double, Int)] = [(0.5, 0), (1.5, 0), (2.5, 0), (0.125, 2), (0.375, 2), (-0.125, 2), (2.675, 2),
                                  (1.0005, 3), (0.000_000_000_5, 9), (1e-10, 9), (-1e-10, 9), (-0.0, 3), (0, 0),
                                  (45.877_567_166_666_67, 9), (-170.500_111_333_333_3, 9), (179.999_999_999_5, 9)]
    for (value, decimals) in cases {
        #expect(formatted(value, decimals) == String(format: "%.*f", Int32(decimals), value), "\(value) with \(decimals) decimals")
    }
}

@Test func fixedDecimal_seededSweep_matchesPrintf() {
    var rng = SplitMix64(seed: 14)
    for _ in 0..<200_000 {
        let decimals = Int(rng.next() % 10)
        // Magnitudes from 1e-12 to 1e6, and values on the decimal grid ± one ulp (near ties).
        let exponent = Double(Int(rng.next() % 19) - 12)
        var value = Double(rng.next() >> 11) / 0x1p53 * pow(10, exponent)
        if rng.next() % 3 == 0 {
            let grid = (value * pow(10, Double(decimals))).rounded() + 0.5
            value = grid / pow(10, Double(decimals))
            switch rng.next() % 3 { case 0: value = value.nextUp; case 1: value = value.nextDown; default: break }
        }
        if rng.next() % 2 == 0 { value = -value }
        #expect(formatted(value, decimals) == String(format: "%.*f", Int32(decimals), value), "\(value) with \(decimals) decimals")
    }
}

@Test func fixedDecimal_outOfRange_leavesItToPrintf() {
    #expect(formatted(0x1p52, 0) == nil)
    #expect(formatted(1e300, 2) == nil)
    #expect(formatted(.nan, 2) == nil)
    #expect(formatted(1, 16) == nil)
    #expect(JSONNumber.string(1e300, .error) == String(format: "%.3f", 1e300))
    #expect(JSONNumber.string(nil, .error) == "null")
    #expect(JSONNumber.string(.infinity, .error) == "null")
    #expect(JSONNumber.string(-12.3456, .dop) == "-12.35")
}

@Test func fixedDecimal_string_isPrintfInAndOutOfRange() {
    let cases: [(Double, Int)] = [(2.675, 2), (-0.0, 0), (12_345.5, 0), (0.0125, 3), (1e300, 2), (-0x1p60, 0),
                                  (.nan, 2), (-.infinity, 1), (1 / 3, 16), (1 / 3, 20)]
    for (value, decimals) in cases {
        #expect(FixedDecimal.string(value, decimals: decimals) == String(format: "%.*f", Int32(decimals), value), "\(value) with \(decimals) decimals")
    }
}
