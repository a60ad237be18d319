import Testing
@testable import NMEACodec

/// `NMEANumber.double` over a field's bytes.
private func read(_ field: String) -> Double? {
    Array(field.utf8).withUnsafeBytes { NMEANumber.double($0) }
}

@Test func nmeaNumber_readsFieldsAsTheStandardLibraryRoundsThem() {
    // Typical fields, and a fraction longer than the exact powers of ten reach (10^22), which
    // must still round correctly (compared bit for bit with Double(String)).
    for field in ["0.64", "14.2", "-3.1", "+1.5", "022.4", "4552.65403", "0", "-0.0", ".5", "5.",
                  "0.0000000000000000000000012345678901234567", "123456789012345678901234.5"] {
        #expect(read(field)?.bitPattern == Double(field)?.bitPattern, "field '\(field)'")
    }
}

@Test func nmeaNumber_rejectsEmptyExponentAndJunk() {
    for field in ["", "-", ".", "1e5", "1E-3", " 1", "1 ", "1,5", "1.2.3", "N", "0x1A"] {
        #expect(read(field) == nil, "field '\(field)' is not an NMEA number")
    }
}
