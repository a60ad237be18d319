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

/// `MillisecondWriter` writes each time as `append(_:fractionDigits: 3, to:)` does, whether the
/// times run on within a minute, step over minutes, days and years, go back, or lie before 1970:
/// 3,000 seeded times in runs of 1 s steps and jumps, and the edges by hand.
@Test func iso8601_millisecondWriter_writesWhatAppendWrites() {
    var rng = SplitMix64(seed: 56)
    var times: [Int64] = [0, -1, -60_000, -60_001, 59_999, 60_000, 1_767_225_599_999, 1_767_225_600_000, 1_767_225_599_999]
    var t: Int64 = 1_767_225_540_000
    for k in 0..<3_000 {
        t += k % 100 == 99 ? Int64(rng.next() % 200_000_000_000) - 100_000_000_000 : 1_000 + Int64(rng.next() % 7) - 3
        times.append(t)
    }
    var writer = ISO8601Time.MillisecondWriter(), written: [UInt8] = Array("time=".utf8), expected = written
    for milliseconds in times {
        writer.append(milliseconds, to: &written)
        ISO8601Time.append(Date(timeIntervalSince1970: Double(milliseconds) / 1000), fractionDigits: 3, to: &expected)
        written.append(0x2C); expected.append(0x2C)
    }
    #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    #expect(String(decoding: written.prefix(30), as: UTF8.self) == "time=1970-01-01T00:00:00.000Z,")
}

/// The millisecond shape (`YYYY-MM-DDThh:mm:ss.sssZ`, read at fixed positions) gives exactly the
/// `Date` the general reader gives for the same time with the zone written `+00:00`, over 5,000
/// seeded instants from 1900 to 2100; text that only starts like it is left to the general reader.
@Test func iso8601_millisecondShape_sameAsGeneralReader() throws {
    var rng = SplitMix64(seed: 34)
    let first: Int64 = -2_208_988_800_000, span: UInt64 = 6_311_433_600_000 // ms: 1900-01-01 … 2100-01-01
    for _ in 0..<5_000 {
        let milliseconds = first + Int64(rng.next() % span)
        let text = ISO8601Time.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000), fractionDigits: 3)
        let fast = try #require(ISO8601Time.date(from: text), "\(text)")
        #expect(fast == ISO8601Time.date(from: String(text.dropLast()) + "+00:00"), "\(text)")
        // Within a microsecond of the instant written (the text is milliseconds; 1 µs in seconds).
        #expect(abs(fast.timeIntervalSince1970 - Double(milliseconds) / 1000) < 1e-6, "\(text)")
    }
    #expect(ISO8601Time.date(from: "2015-06-01T00:00:02.12xZ") == nil)
    #expect(ISO8601Time.date(from: "2015-06-31T00:00:02.123Z") == nil) // June has 30 days
    #expect(ISO8601Time.date(from: "2015-06-01T24:00:00.000Z") == ISO8601Time.date(from: "2015-06-02T00:00:00Z"))
    #expect(ISO8601Time.date(from: "2015-06-01 00:00:02.123Z") == ISO8601Time.date(from: "2015-06-01T00:00:02.123+00:00"))
}
