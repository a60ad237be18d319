import Testing
import GeoBase
@testable import GeoCore

/// `DecimalNumber.parse` over a string's UTF-8.
private func parse(_ text: String, allowingExponent: Bool = true) -> Double? {
    var text = text
    return text.withUTF8 { bytes in
        // A non-nil pointer even for the empty string.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes.count)) { copy in
            _ = copy.initialize(from: bytes)
            return DecimalNumber.parse(copy.baseAddress!, count: bytes.count, allowingExponent: allowingExponent)
        }
    }
}

/// The oracle: the standard library's correctly rounding reader, compared bit for bit (so
/// -0 and +0 differ, and infinities compare).
private func expectSameAsStandardLibrary(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = Double(text)
    let got = parse(text)
    #expect(got?.bitPattern == expected?.bitPattern, "'\(text)': \(String(describing: got)) vs Double(String) \(String(describing: expected))",
            sourceLocation: sourceLocation)
}

@Test func decimalNumber_matchesTheStandardLibraryOnEdgeCases() {
    let cases = [
        "0", "-0", "+0", "0.0", "-0.000", "1", "-1", "+1", "46.0000477", "-13.9999099", "300.4", ".5", "5.", "-.5",
        // Fast-path limits: 2^53 and 2^53 + 1, powers of ten at ±22 and ±23.
        "9007199254740992", "9007199254740993", "1e22", "1e23", "1e-22", "1e-23", "123456789012345678e-22",
        // More digits than a UInt64 holds, exactly and inexactly representable.
        "0.1000000000000000055511151231257827021181583404541015625", "12345678901234567890123",
        "1234567890123456789012345678901234567890e-30", "0.30000000000000004", "2.2250738585072011e-308",
        "9007199254740993.0000000000000000000001", "00000000000000000000000001.5",
        // Exponents with signs and leading zeros; huge and tiny.
        "1E5", "1e+05", "2.5e-3", "-7e0", "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "1e309",
        "-1e400", "4.9e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400", "-1e-400",
        "0e999999999999999999", "1e-99999999999999999999",
    ]
    for text in cases { expectSameAsStandardLibrary(text) }
    // Spot checks of the oracle itself, so a broken comparison cannot pass silently.
    #expect(parse("-0")?.sign == .minus)
    #expect(parse("1e309") == .infinity)
    #expect(parse("46.0000477") == 46.0000477)
}

@Test func decimalNumber_rejectsAnythingButOneNumber() {
    let rejected = ["", "+", "-", ".", "-.", "e5", ".e5", "1e", "1e+", "1e-", " 1", "1 ", "1,5", "1.2.3", "--1", "+-1",
                    "0x10", "nan", "inf", "-infinity", "1_000", "1e5.5", "1ee5", "5e5x", "١٢"]
    for text in rejected {
        #expect(parse(text) == nil, "'\(text)' is not a decimal number")
    }
}

@Test func decimalNumber_withoutExponentRejectsTheExponentForm() {
    #expect(parse("1e5", allowingExponent: false) == nil)
    #expect(parse("4807.038", allowingExponent: false) == 4807.038)
    #expect(parse("-0.5", allowingExponent: false) == -0.5)
}

@Test func decimalNumber_matchesTheStandardLibraryOnSeededSweeps() {
    var rng = SplitMix64(seed: 2026)
    for _ in 0..<20_000 {
        // Up to 25 mantissa digits split around a point, an optional sign and exponent.
        let digitCount = Int(rng.next() % 25) + 1
        var digits = ""
        for _ in 0..<digitCount { digits.append(Character(Unicode.Scalar(UInt8(48 + rng.next() % 10)))) }
        let point = Int(rng.next() % UInt64(digitCount + 1))
        var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
        if rng.next() % 2 == 0 { text = "-" + text }
        if rng.next() % 3 == 0 { text += "e\(Int(rng.next() % 700) - 350)" }
        expectSameAsStandardLibrary(text)
    }
    // Shortest round-trip strings of random doubles read back to themselves.
    for _ in 0..<20_000 {
        let v = Double(bitPattern: rng.next())
        guard v.isFinite else { continue }
        #expect(parse("\(v)") == v, "\(v)")
    }
}
