import Testing
import XMLStreaming
import GeoBase

/// Serves bytes at most `step` at a time, so tokens straddle every read boundary.
struct SteppedSource: ByteSource {
    let bytes: [UInt8]
    let step: Int
    var position = 0

    init(_ text: String, step: Int = .max) {
        self.init(bytes: Array(text.utf8), step: step)
    }

    init(bytes: [UInt8], step: Int = .max) {
        self.bytes = bytes
        self.step = step
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(buffer.count, step, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress?.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
        position += n
        return n
    }
}

/// A source whose read fails after the first bytes.
struct FailingSource: ByteSource {
    struct Broken: Error {}
    var served = false
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if served { throw Broken() }
        served = true
        let text = Array("<a>".utf8)
        buffer.copyBytes(from: text)
        return text.count
    }
}

/// Every token as `kind name-or-text [attributes]`, decoded, plus the element depth.
func tokens(_ source: some ByteSource, capacity: Int = 1 << 18) throws(XMLError) -> [String] {
    var scanner = XMLScanner(source: source, capacity: capacity)
    var out: [String] = []
    var text = XMLByteBuffer()
    while true {
        let kind = try scanner.next()
        switch kind {
        case .endOfInput:
            return out
        case .startTag:
            var s = "<\(scanner.nameString)"
            for i in 0..<scanner.attributeCount {
                let a = scanner.attribute(at: i)
                text.reset()
                try scanner.appendDecoded(a.value, to: &text, normalizeSpace: true)
                s += " \(scanner.string(a.name))=\(text.string())"
            }
            out.append(s + (scanner.selfClosing ? "/>" : ">") + " @\(scanner.tokenOffset) d\(scanner.depth)")
        case .endTag:
            out.append("</\(scanner.nameString)> d\(scanner.depth)")
        case .text:
            text.reset()
            try scanner.appendDecoded(scanner.tokenRange, to: &text)
            out.append("text \(text.string())")
        default:
            out.append("\(kind) \(scanner.string(scanner.tokenRange))")
        }
    }
}

let sample = """
<?xml version="1.0"?>
<!DOCTYPE r [ <!ENTITY x "y"> ]>
<!-- a > comment -->
<r a="1 &amp; 2" b='&#x263A;&#233;'>\r
 <p:q c="line\tbreak"/>
 <![CDATA[ <not> & markup ]]>
 caf&#233; &lt;&gt;&quot;&apos;
</r>
"""

@Test func splitReadsAtEveryByteBoundary_giveTheSameTokens() throws {
    let whole = try tokens(SteppedSource(sample))
    #expect(whole.count == 13)
    #expect(whole.contains("<r a=1 & 2 b=☺é> @76 d1"))
    #expect(whole.contains("<p:q c=line break/> @115 d1"))
    #expect(whole.contains("cdata <![CDATA[ <not> & markup ]]>"))
    #expect(whole.contains("text \n café <>\"'\n"))
    for step in 1...9 {
        // A 16-byte window forces it to move and to grow for tokens larger than it.
        #expect(try tokens(SteppedSource(sample, step: step), capacity: 16) == whole, "reads of \(step) bytes")
    }
}

@Test func truncatedInput_locatesTheUnfinishedToken() throws {
    for (text, line, column, offset) in [("<a>\n <b x=\"1", 2, 2, 5), ("<a>\n<!-- open", 2, 1, 4), ("<a><b></b>\n", 2, 1, 11)] {
        let error = #expect(throws: XMLError.self, "\(text)") { try tokens(SteppedSource(text, step: 3), capacity: 4) }
        #expect(error?.code == .truncated, "\(text)")
        #expect(error?.line == line && error?.column == column && error?.offset == offset, "\(text): \(String(describing: error))")
    }
}

@Test func malformedMarkup_isLocated() throws {
    let cases: [(String, Int, Int)] = [
        ("<a>\n  <b></c></a>", 2, 6),           // mismatched end tag, at its '<'
        ("<a>\n<b x=1/></a>", 2, 6),            // unquoted attribute value
        ("<a>&bogus;</a>", 1, 4),               // unknown entity
        ("<!DOCTYPE a [<!ENTITY e \"boom\">]><a>&e;</a>", 1, 37),  // DTD entities are never expanded
        ("<a>&#0;</a>", 1, 4),                  // character reference to U+0000
    ]
    for (text, line, column) in cases {
        let error = #expect(throws: XMLError.self, "\(text)") { try tokens(SteppedSource(text)) }
        #expect(error?.code == .malformed, "\(text)")
        #expect(error?.line == line && error?.column == column, "\(text): \(String(describing: error))")
    }
}

@Test func sourceErrors_areIOErrorsWithTheUnderlyingError() throws {
    let error = #expect(throws: XMLError.self) { try tokens(FailingSource()) }
    #expect(error?.code == .io)
    #expect(error?.underlying is FailingSource.Broken)
    #expect(error?.offset == 3)
}

@Test func capturing_keepsRawBytesAndPinnedOffsetsStayLocatable() throws {
    var scanner = XMLScanner(source: SteppedSource("<a>\n<x><y k='&amp;'/>t</x>\n" + String(repeating: " ", count: 100) + "</a>", step: 5), capacity: 8)
    #expect(try scanner.next() == .startTag)
    #expect(try scanner.next() == .text)
    #expect(try scanner.next() == .startTag)
    let x = scanner.tokenOffset
    scanner.pinnedOffset = x
    scanner.capturing = true
    while try scanner.next() != .endTag || scanner.depth > 1 {}
    scanner.capturing = false
    #expect(String(decoding: scanner.captured.bytes, as: UTF8.self) == "<y k='&amp;'/>t</x>")
    #expect(try scanner.next() == .text)
    #expect(scanner.location(of: x) == (line: 2, column: 1), "the pinned start is still in the window")
    scanner.pinnedOffset = .max
    #expect(try scanner.next() == .endTag)
    #expect(try scanner.next() == .endOfInput)
}

@Test func lineNumbers_holdAfterTheWindowMovesAndAfterABadByte() throws {
    // Line feeds are counted as bytes are read; the expected line and column come from the
    // text itself, for reads of every size through a window that keeps moving.
    var body = "<r>\n"
    for i in 0..<40 { body += "  <p n=\"\(i)\">\t</p>\r\n" }
    let cases: [(String, XMLError.Code)] = [
        (body + "  <q></p>\n</r>", .malformed),            // mismatched end tag on line 42
        (body + "  <q>\u{1}\n\n</q>\n</r>", .malformed),   // a control byte, more lines after it
        (body + "  <q>\u{E9}\u{1}\n</q>\n</r>", .malformed), // after a two-byte character
    ]
    for (text, code) in cases {
        let bytes = Array(text.utf8)
        for step in [1, 3, 7, 64, Int.max] {
            let error = #expect(throws: XMLError.self, "step \(step)") { try tokens(SteppedSource(bytes: bytes, step: step), capacity: 16) }
            guard let error else { continue }
            let before = bytes[..<error.offset]
            let line = 1 + before.filter { $0 == 0x0A }.count
            let column = error.offset - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
            #expect(error.code == code && error.line == 42, "step \(step): \(error)")
            #expect(error.line == line && error.column == column, "step \(step): \(error)")
        }
    }
}
