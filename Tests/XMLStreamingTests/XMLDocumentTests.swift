import Testing
import GeoBase
import XMLStreaming

/// Reads every token of `bytes` (the scanner reports the document's end itself).
private func scanAll(_ bytes: [UInt8], step: Int = .max) throws(XMLError) {
    var scanner = XMLScanner(source: SteppedSource(bytes: bytes, step: step), capacity: 16)
    while try scanner.next() != .endOfInput {}
}

/// Documents that are not XML 1.0 well-formed (§2.1 one root, §2.2 characters, §3.1 unique
/// attributes), with the code and the 0-based byte offset of the first bad byte.
@Test(arguments: [
    (Array("<a x=\"1\" y=\"2\" x=\"3\"/>".utf8), XMLError.Code.malformed, 15),
    (Array("<a></a><b/>".utf8), .malformed, 7),
    (Array("<a/>\n<a/>".utf8), .malformed, 5),
    (Array("<a></a>\ngarbage\n".utf8), .malformed, 8),
    (Array("<a></a>x".utf8), .malformed, 7),
    (Array("<a>b\u{0}c</a>".utf8), .malformed, 4),
    (Array("<a></a>\n".utf8) + [0, 0, 0], .malformed, 8),
    (Array("<a>\u{1}</a>".utf8), .malformed, 3),
    (Array("<a>".utf8) + [0xC0, 0x80] + Array("</a>".utf8), .malformed, 3), // overlong NUL
    (Array("<a>".utf8) + [0xED, 0xA0, 0x80] + Array("</a>".utf8), .malformed, 4), // a UTF-16 surrogate
    (Array("<a>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</a>".utf8), .malformed, 4), // above U+10FFFF
    (Array("<a>".utf8) + [0xE2, 0x82] + Array("</a>".utf8), .malformed, 5), // a sequence cut short
    (Array("<a t=\"".utf8) + [0xFF] + Array("\"/>".utf8), .malformed, 6),
    ([0xFE, 0xFF, 0, 0x3C, 0, 0x61, 0, 0x2F, 0, 0x3E], .unsupportedEncoding, 0), // UTF-16BE with BOM
    ([0x3C, 0, 0x61, 0, 0x2F, 0, 0x3E, 0], .unsupportedEncoding, 1), // UTF-16LE
    ([], .truncated, 0),
    (Array("<?xml version=\"1.0\"?>\n<!-- no root -->\n".utf8), .truncated, 39),
])
func notWellFormed_isAnErrorAtTheFirstBadByte(bytes: [UInt8], code: XMLError.Code, offset: Int) throws {
    for step in [1, 3, Int.max] {
        let error = #expect(throws: XMLError.self, "\(bytes) in reads of \(step)") { try scanAll(bytes, step: step) }
        #expect(error?.code == code && error?.offset == offset, "reads of \(step): \(String(describing: error))")
    }
}

@Test func misc_afterTheRoot_isAccepted() throws {
    // XML 1.0 §2.1: document ::= prolog element Misc*; Misc is comments, PIs and white space.
    let text = "\u{FEFF}<?xml version=\"1.0\"?>\n<r a=\"1\" b=\"1\"><x a=\"1\"/>é ☺ 𝄞</r>\n<!-- c -->\n<?pi x?>\n\t\r\n"
    try scanAll(Array(text.utf8), step: 1)
    try scanAll(Array(text.utf8))
}

@Test func finishDocument_findsGarbageAfterTheRoot() throws {
    var scanner = XMLScanner(source: SteppedSource(bytes: Array("<r></r>\n<!-- ok --> junk".utf8)))
    #expect(try scanner.next() == .startTag)
    #expect(try scanner.next() == .endTag)
    #expect(scanner.rootClosed)
    let error = #expect(throws: XMLError.self) { try scanner.finishDocument() }
    #expect(error?.code == .malformed && error?.line == 2 && error?.column == 13, "\(String(describing: error))")
}

@Test func tokensBeforeABadByte_areDelivered() throws {
    // The bad byte is in the same read as everything before it; those tokens still come out.
    var scanner = XMLScanner(source: SteppedSource(bytes: Array("<r><a/><b/>x\u{0}</r>".utf8)))
    var names: [String] = []
    let error = #expect(throws: XMLError.self) {
        while try scanner.next() != .endOfInput { if scanner.kind == .startTag { names.append(scanner.nameString) } }
    }
    #expect(names == ["r", "a", "b"])
    #expect(error?.offset == 12)
}

/// Every ASCII byte at every position of the eight-byte words the character check reads at
/// once (XML 1.0 §2.2): tab, line feed and carriage return pass, the other C0 controls are an
/// error at exactly their offset, printable bytes pass, in the middle of plain text and next
/// to a line end.
@Test func asciiControlBytes_atEveryWordPosition_areCheckedExactly() throws {
    for byte in UInt8(0)..<0x80 where byte != 0x3C && byte != 0x26 { // not '<' or '&' (markup)
        for position in 0..<17 {
            let prefix = Array("<r>".utf8) + Array(repeating: 0x61, count: position)
            for neighbour: UInt8 in [0x61, 0x0A] {
                let bytes = prefix + [byte, neighbour] + Array("bcdefghijklmnop</r>".utf8)
                let allowed = byte >= 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
                if allowed {
                    #expect(throws: Never.self, "byte \(byte) at \(position)") { try scanAll(bytes) }
                } else {
                    let error = #expect(throws: XMLError.self, "byte \(byte) at \(position)") { try scanAll(bytes) }
                    #expect(error?.code == .malformed && error?.offset == prefix.count, "byte \(byte) at \(position): \(String(describing: error))")
                }
            }
        }
    }
}

/// A '<' inside an attribute value is an error at the '<' (XML 1.0 §3.1 AttValue), in a
/// value split across reads too.
@Test func lessThanInAnAttributeValue_isAnErrorAtIt() throws {
    let bytes = Array("<r a=\"12<34\"/>".utf8)
    for step in [1, 3, Int.max] {
        let error = #expect(throws: XMLError.self, "reads of \(step)") { try scanAll(bytes, step: step) }
        #expect(error?.code == .malformed && error?.offset == 8, "reads of \(step): \(String(describing: error))")
    }
}
