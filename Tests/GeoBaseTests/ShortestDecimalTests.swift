import Foundation
import GeoBase
import Testing

/// `ShortestDecimal` writes what the standard library's `description` writes (its oracle: the
/// shortest text that reads back as the value), whole numbers without ".0"; its path without
/// `description` (`appendFewDecimals`) writes exactly `description`'s text or nothing.
private func expected(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : value.description
}

@Test func shortestDecimal_edges_asDescription() {
    let cases: [Double] = [0, -0.0, 1, -1, 48, 2.00001, 48.8566, -122.4194, 0.1, 0.5, 1e-4, -1e-4, 1.2e-4, 9.9e-5, 1e-5, 0.0001234567,
                           0.1234567, 0.12345678, 179.9999999, -179.9999999, 89.9999999, 0x1p26 - 0.5, 0x1p26 + 0.5, 67_108_863.9999999,
                           1e15 - 0.5, 1e15, 1e16, 12_345.678, 5.0000001, 0.30000000000000004, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                           .nan, .infinity, -.infinity]
    for value in cases { #expect(ShortestDecimal.string(value) == expected(value), "\(value)") }
}

@Test func shortestDecimal_seededSweep_asDescription() {
    var rng = SplitMix64(seed: 35)
    var fewDecimals = 0
    for _ in 0..<300_000 {
        let decimals = Int(rng.next() % 10)
        // On the decimal grid of 0 to 9 places (most of what protocols send), its neighbours
        // one ulp away, or any double; magnitudes 1e-6 to 1e9.
        let exponent = Double(Int(rng.next() % 16) - 6)
        var value = Double(rng.next() >> 11) / 0x1p53 * pow(10, exponent)
        switch rng.next() % 4 {
        case 0: break
        case 1: value = (value * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals))
        case 2: value = ((value * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals))).nextUp
        default: value = ((value * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals))).nextDown
        }
        if rng.next() % 2 == 0 { value = -value }
        #expect(ShortestDecimal.string(value) == expected(value), "\(value)")
        var few: [UInt8] = []
        if ShortestDecimal.appendFewDecimals(value, to: &few) {
            fewDecimals += 1
            #expect(String(decoding: few, as: UTF8.self) == value.description, "\(value)")
        } else {
            #expect(few.isEmpty)
        }
    }
    // The grid values of 1 to 7 places within 10⁻⁴…2²⁶ take the path without `description`:
    // an eighth of the sweep's values (a quarter on the grid, 7 of 10 place counts, about 10
    // of the 16 magnitudes).
    #expect(fewDecimals > 30_000, "\(fewDecimals) of 300,000")
}
