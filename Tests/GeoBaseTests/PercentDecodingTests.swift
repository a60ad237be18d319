import Testing
import GeoBase

private func decode(_ text: String, plusIsSpace: Bool) -> Result<String, PercentDecoding.Failure> {
    var text = text
    return text.withUTF8 { bytes in Result { () throws(PercentDecoding.Failure) in try PercentDecoding.decode(bytes, plusIsSpace: plusIsSpace) } }
}

/// RFC 3986 §2.1: `%XX` is the byte XX in either case of hex digit; `+` is a space only in form
/// encoding (WHATWG URL §5.1), and `%2B` is a `+` in both.
@Test func percentDecoding_escapesAndPlus() {
    #expect(decode("a%20b%2fc%2Bd+e", plusIsSpace: true) == .success("a b/c+d e"))
    #expect(decode("a%20b%2fc%2Bd+e", plusIsSpace: false) == .success("a b/c+d+e"))
    #expect(decode("caf%C3%A9", plusIsSpace: false) == .success("café"))
    #expect(decode("plain", plusIsSpace: true) == .success("plain"))
    #expect(decode("", plusIsSpace: true) == .success(""))
}

/// A `%` without two hex digits after it, and bytes that decode to something not UTF-8, are
/// refused, wherever they are.
@Test(arguments: ["%", "a%2", "%G1", "%1G", "ab%"])
func percentDecoding_badEscape(_ text: String) {
    #expect(decode(text, plusIsSpace: true) == .failure(.badEscape))
}

@Test(arguments: ["%C3", "%FF", "a%C3%28", "%ED%A0%80"])
func percentDecoding_notUTF8(_ text: String) {
    #expect(decode(text, plusIsSpace: false) == .failure(.notUTF8))
}

/// Every byte's hex digit value, against the standard library's radix-16 parsing.
@Test func hexDigitValue_agreesWithTheStandardLibrary_forEveryByte() {
    for byte in UInt8.min...UInt8.max {
        let oracle = byte < 0x80 ? UInt8(String(UnicodeScalar(byte)), radix: 16) : nil
        #expect(byte.hexDigitValue == oracle, "byte \(byte)")
    }
}
