import Foundation
import Testing
import GeoBase

/// Fixed fraction digits, as gpsd prints times (3: `json_tpv_dump`'s milliseconds): rounded to
/// the nearest unit, carries into the seconds, the date and before 1970.
@Test(arguments: [
    (1_555_029_596.0, 3, "2019-04-12T00:39:56.000Z"),
    (1_555_029_596.1234, 3, "2019-04-12T00:39:56.123Z"),
    (1_555_029_596.9996, 3, "2019-04-12T00:39:57.000Z"),       // rounds up into the next second
    (1_555_113_599.9999, 3, "2019-04-13T00:00:00.000Z"),       // … and the next day
    (-0.25, 3, "1969-12-31T23:59:59.750Z"),
    (1_555_029_596.5, 0, "2019-04-12T00:39:57Z"),
    (1_555_029_596.123456789, 9, "2019-04-12T00:39:56.123456768Z"), // the Double times 10⁹, rounded
])
func iso8601_fixedFractionDigits(seconds: Double, digits: Int, expected: String) {
    #expect(ISO8601Time.string(from: Date(timeIntervalSince1970: seconds), fractionDigits: digits) == expected)
}

/// Without digits: the fewest that read back to the same `Date` (unchanged).
@Test func iso8601_shortestFraction_readsBack() throws {
    for seconds in [1_555_029_596.0, 1_555_029_596.5, 1_555_029_596.123, -0.25] {
        let date = Date(timeIntervalSince1970: seconds)
        let text = ISO8601Time.string(from: date)
        #expect(ISO8601Time.date(from: text) == date, "\(text)")
    }
    #expect(ISO8601Time.string(from: Date(timeIntervalSince1970: 1_555_029_596.5)) == "2019-04-12T00:39:56.5Z")
}

/// `append` writes after what the buffer holds the text `string(from:fractionDigits:)` gives:
/// years zero-padded to four digits, a fifth digit written in full.
@Test func iso8601_appendsTheStringsText() {
    for (seconds, expected) in [(-30_610_310_400.0, "0999-12-31T00:00:00.000Z"), (253_402_300_800.0, "10000-01-01T00:00:00.000Z"),
                                (1_555_029_596.1234, "2019-04-12T00:39:56.123Z")] {
        let date = Date(timeIntervalSince1970: seconds)
        var bytes = Array("time=".utf8)
        ISO8601Time.append(date, fractionDigits: 3, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "time=" + expected)
        #expect(ISO8601Time.string(from: date, fractionDigits: 3) == expected)
    }
}
