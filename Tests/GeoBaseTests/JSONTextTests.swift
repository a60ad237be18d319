import Foundation
import GeoBase
import Testing

/// `JSONText` against Foundation's JSON parser (the oracle): every literal it writes parses
/// back to the same string, and the escapes are the short forms RFC 8259 §7 allows.
struct JSONTextTests {
    @Test func quoted_parsesBackToTheSameString() throws {
        var texts = ["", "plain", "quote \" and backslash \\", "line\nreturn\rtab\t", "nul \u{0} bell \u{7} unit \u{1F}",
                     "del \u{7F}", "ü é 日本語 🗺️", "</script>", "\u{2028}\u{2029}"]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<500 {
            let scalars = (0..<Int(rng.next() % 12)).compactMap { _ in Unicode.Scalar(UInt32(rng.next() % 0x300)) }
            texts.append(String(String.UnicodeScalarView(scalars)))
        }
        for text in texts {
            let literal = JSONText.quoted(text)
            let parsed = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
            #expect(parsed == text, "\(literal)")
        }
    }

    @Test func quoted_usesShortEscapesAndHexForOtherControls() {
        #expect(JSONText.quoted("a\"b\\c\nd\re\tf") == #""a\"b\\c\nd\re\tf""#)
        #expect(JSONText.quoted("\u{0}\u{1F}") == #""\u0000\u001f""#)
        #expect(JSONText.quoted("ü/") == "\"ü/\"")
    }

    @Test func appendQuoted_appendsToWhatIsThere() {
        var out = "{\"k\":"
        JSONText.appendQuoted("v", to: &out)
        #expect(out == "{\"k\":\"v\"")
    }
}

/// Integers as `String(_:)` writes them, from `Int64.min` (20 bytes) to `Int64.max`.
@Test func integers_areWrittenAsStringWritesThem() {
    for value: Int64 in [0, 7, -7, 10, -10, 1_000_000, Int64.max, Int64.min, Int64.min + 1] {
        var text = ""
        JSONNumber.withText(ofInteger: value) { text = String(decoding: $0, as: UTF8.self) }
        #expect(text == String(value))
    }
}
