import Platform
public import GeoBase

/// The kinds of token the byte-level pull scanner produces.
public enum XMLTokenKind: Equatable, Sendable {
    case startTag, endTag, text, cdata, comment, processingInstruction, doctype, endOfInput
}

/// A byte-level XML pull scanner over a refillable window of an `ByteSource`
/// (XML 1.0 §2–§4, the subset GPX and OSM XML need: no DTD-defined entities, so no entity
/// expansion attacks; UTF-8 only; a DOCTYPE is skipped).
///
/// It checks well-formedness as it goes (tag nesting, attribute syntax and uniqueness, entity
/// syntax, one root element with nothing but white space, comments and processing instructions
/// after it, characters: valid UTF-8 without the C0 controls XML 1.0 §2.2 excludes),
/// tracks line and column lazily (newlines are counted only when bytes leave the window or an
/// error is located), and keeps memory constant: the window holds the current token plus one
/// read, and only grows when a single token is larger than it.
///
/// Token positions (`tokenStart`, `nameRange`, attribute ranges) are indices into `buf`,
/// valid until the next call to `next()`. Errors are `XMLError`s with line, column and offset.
///
/// - Complexity: O(n) in the input size; each byte is examined a constant number of times.
public struct XMLScanner {
    /// Called once per window refill (256 KiB), so an existential costs nothing measurable
    /// and keeps this type non-generic.
    private var source: any ByteSource
    /// Owns the window's memory (a struct has no deinit); `buf` is its current pointer.
    private let storage: BufferOwner<UInt8>
    /// The window; token and attribute ranges index into it.
    public private(set) var buf: UnsafeMutablePointer<UInt8>
    /// Bytes in the window (the scanner's memory, apart from the element-name stack).
    public private(set) var capacity: Int
    /// Current read index into `buf`.
    public private(set) var pos = 0
    /// One past the last valid byte in `buf`.
    public private(set) var end = 0
    private var sourceDone = false
    /// `XMLScanner.nameByteTable`.
    private let nameBytes = XMLScanner.nameByteTable
    /// Checks the characters of every byte read (XML 1.0 §2.2).
    private var characters = XMLCharacterValidator()
    /// Whether the root element has started, and whether it has closed (XML 1.0 §2.1).
    public private(set) var rootStarted = false, rootClosed = false
    /// Absolute input offset of `buf[0]`.
    @usableFromInline private(set) var baseOffset = 0
    /// The absolute offset where the line holding `buf[0]` starts (line numbers come from the
    /// line feeds the character validator counts as bytes are read).
    private var baseLineStart = 0

    // The current token.
    public private(set) var kind: XMLTokenKind = .endOfInput
    /// Index in `buf` of the current token's first byte.
    public private(set) var tokenStart = 0
    /// Name of a start or end tag, relative to `tokenStart`.
    @usableFromInline var nameLo = 0, nameHi = 0
    /// Whether a start tag ended with `/>`.
    public private(set) var selfClosing = false
    /// Where an attribute's name and value are in a start tag, relative to `tokenStart`.
    @usableFromInline struct AttributeSlot: BitwiseCopyable {
        @usableFromInline var nameLo, nameHi, valueLo, valueHi: Int
    }
    /// The attributes of the current start tag. Slots are reused across tags; only the first
    /// `attributeCount` belong to this tag.
    @usableFromInline var attributeSlots = XMLStack<AttributeSlot>(capacity: 8)
    /// Number of attributes of the current start tag.
    public private(set) var attributeCount = 0

    /// An open element: where its name starts in `openNames`, and the absolute offset of its
    /// start tag.
    @usableFromInline struct OpenElement: BitwiseCopyable {
        var nameStart: Int
        var offset: Int
    }
    /// Names of the open elements, concatenated.
    private var openNames = XMLByteBuffer(capacity: 256)
    /// The open elements, innermost last (unsafe storage: one push and one pop per element,
    /// without an array's uniqueness checks).
    @usableFromInline var openElements = XMLStack<OpenElement>(capacity: 32)

    /// While set, bytes from this absolute offset on stay in the window (so an unfinished
    /// element's start can still be located after the window moved).
    public var pinnedOffset = Int.max

    /// While true, the raw bytes of each token read are appended to `captured`
    /// (GPX `<extensions>` kept verbatim).
    public var capturing = false
    /// The captured bytes (kept allocated between captures).
    public var captured = XMLByteBuffer(capacity: 1024)

    /// While true, character data leaves the window as it is scanned, so a text token's range
    /// holds only its last window's worth and a long run of text (a gigabyte of white space)
    /// costs no memory; for readers that skip character data (OSM XML).
    public var discardsText = false

    /// Most bytes the window grows to: a token longer (or an element kept whole from
    /// `pinnedOffset`) is `.tooLarge`, not gigabytes of memory (a few megabytes of gzip can
    /// inflate to one 3 GB attribute or comment).
    public let maximumCapacity: Int
    /// The default `maximumCapacity`: 64 MiB. A GPX or OSM token is a tag with its attributes,
    /// a comment or a run of text; OSM's API caps a tag value at 255 characters, and the
    /// largest real GPX element (a track point with its extensions) is a few kilobytes.
    public static let defaultMaximumCapacity = 64 << 20

    /// Creates a scanner; nothing is read until `next()`.
    /// - Parameters:
    ///   - capacity: the initial window, in bytes; it doubles only for a token larger than it.
    ///   - maximumCapacity: the most it doubles to.
    public init(source: any ByteSource, capacity: Int = 1 << 18, maximumCapacity: Int = XMLScanner.defaultMaximumCapacity) {
        self.source = source
        self.capacity = capacity
        self.maximumCapacity = max(capacity, maximumCapacity)
        self.buf = .allocate(capacity: capacity)
        self.storage = BufferOwner(buf)
    }

    /// Depth of element nesting after the current token.
    @inlinable public var depth: Int { openElements.count }

    /// Absolute input offset of the current token.
    @inlinable public var tokenOffset: Int { baseOffset + tokenStart }

    /// Absolute offset of the end of the input read so far (meaningful at end of input).
    public var endOffset: Int { baseOffset + end }

    // MARK: - Window management

    /// Makes at least `n` bytes available from `pos`, keeping the current token; false at the end.
    @inline(__always)
    private mutating func ensure(_ n: Int) throws(XMLError) -> Bool {
        if end - pos >= n { return true }
        return try refill(n)
    }

    @inline(never)
    private mutating func refill(_ n: Int) throws(XMLError) -> Bool {
        while end - pos < n {
            if sourceDone { return false }
            // Drop everything before the current token (or the pinned offset), keeping where
            // the line at the new `buf[0]` starts.
            let drop = min(tokenStart, max(0, pinnedOffset - baseOffset))
            if drop > 0 {
                if let feed = XMLByteSearch.lastIndex(of: 0x0A, in: buf, before: drop) { baseLineStart = baseOffset + feed + 1 }
                memmove(buf, buf + drop, end - drop)
                baseOffset += drop
                pos -= drop
                end -= drop
                tokenStart -= drop
            }
            if end == capacity {
                guard capacity < maximumCapacity else {
                    throw error(.tooLarge, "one token is longer than \(maximumCapacity) bytes, the most this reader holds", at: tokenOffset)
                }
                let grown = min(capacity * 2, maximumCapacity)
                buf = storage.reallocate(keeping: end, capacity: grown)
                capacity = grown
            }
            let got: Int
            do {
                got = try source.read(into: UnsafeMutableRawBufferPointer(start: buf + end, count: capacity - end))
            } catch {
                throw self.error(.io, "reading the input failed: \(error)", at: baseOffset + end, underlying: error)
            }
            if got == 0 {
                sourceDone = true
            } else {
                characters.validate(UnsafeBufferPointer(start: buf + end, count: got), at: baseOffset + end)
                end += got
            }
        }
        return true
    }

    // MARK: - Locations and errors

    /// The line after the first `limit` bytes of the window, and the absolute offset where it
    /// starts: the line feeds read so far less those from `limit` to the end of the window.
    private func lineAndStart(after limit: Int) -> (line: Int, start: Int) {
        let line = 1 + characters.lineFeeds - XMLByteSearch.lineFeeds(in: buf + limit, count: end - limit)
        guard let feed = XMLByteSearch.lastIndex(of: 0x0A, in: buf, before: limit) else { return (line, baseLineStart) }
        return (line, baseOffset + feed + 1)
    }

    /// Line and column of an absolute offset inside the window or at its end.
    public func location(of offset: Int) -> (line: Int, column: Int) {
        let (line, lineStart) = lineAndStart(after: max(0, min(offset - baseOffset, end)))
        return (line, offset - lineStart + 1)
    }

    /// "line N" for an offset still in the window, else "byte offset N" (lines are counted
    /// only inside the window, so an element opened before it has no known line any more).
    private func place(of offset: Int) -> String {
        offset >= baseOffset ? "line \(location(of: offset).line)" : "byte offset \(offset)"
    }

    /// An error located at an absolute offset inside the window or at its end.
    @inline(never)
    public func error(_ code: XMLError.Code, _ message: String, at offset: Int, underlying: (any Error)? = nil) -> XMLError {
        let (line, column) = location(of: offset)
        return XMLError(code, message, line: line, column: column, offset: offset, underlying: underlying)
    }

    @inline(never)
    private func truncated(_ what: StaticString) -> XMLError {
        error(.truncated, "the input ends inside \(what) (input length \(baseOffset + end) bytes)", at: tokenOffset)
    }

    /// A `.malformed` error at an index in the window; the message is built only here, out of
    /// the scanning loops' line.
    @inline(never)
    func malformed(_ message: @autoclosure () -> String, at index: Int) -> XMLError {
        error(.malformed, message(), at: baseOffset + index)
    }

    // MARK: - Tokens

    /// Name of the current tag as a byte range in the window.
    @inlinable public var nameRange: Range<Int> { (tokenStart + nameLo)..<(tokenStart + nameHi) }

    /// The name of the current tag without a namespace prefix, as a byte range.
    @inlinable public var localNameRange: Range<Int> {
        var lo = tokenStart + nameLo
        let hi = tokenStart + nameHi
        var i = lo
        while i < hi { if buf[i] == 0x3A { lo = i + 1 }; i += 1 }
        return lo..<hi
    }

    /// The current token's raw bytes.
    @inlinable public var tokenRange: Range<Int> { tokenStart..<pos }

    /// The name of the current tag as a string (for messages).
    public var nameString: String { string(nameRange) }

    /// The bytes of a range in the window as a string (invalid UTF-8 repaired with U+FFFD).
    public func string(_ r: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: buf + r.lowerBound, count: r.count), as: UTF8.self)
    }

    /// Advances to the next token (white space included); see `next(skippingBlankText:)`.
    @discardableResult
    public mutating func next() throws(XMLError) -> XMLTokenKind {
        try next(skippingBlankText: false)
    }

    /// Advances to the next token.
    /// - Parameter skippingBlankText: pass over white space before markup instead of returning
    ///   it as a text token, for a reader in a container whose white space means nothing (GPX
    ///   between points): one inline pass instead of a token. Bytes being captured are never
    ///   passed over, and white space reaching the end of the window is an ordinary text token.
    /// - Throws: `XMLError` `.malformed` for syntax errors, bytes that are not XML characters
    ///   and anything but white space, comments and processing instructions after the root
    ///   element; `.unsupportedEncoding` for UTF-16 or UTF-32 input; `.truncated` when the
    ///   input ends inside a token, with elements still open or before any root element;
    ///   `.io` when the source throws.
    @discardableResult
    public mutating func next(skippingBlankText: Bool) throws(XMLError) -> XMLTokenKind {
        tokenStart = pos
        if skippingBlankText, !capturing, pos < end {
            // Control bytes other than white space are passed over too: the character check
            // rejects them at this token all the same.
            let p = XMLByteSearch.firstIndexAbove0x20(in: buf, from: pos, to: end)
            if p < end, buf[p] == 0x3C {
                pos = p
                tokenStart = p
            }
        }
        guard try ensure(1) else { return try endOfInput() }
        // A token that reached a byte which is not an XML character ends the document there,
        // and that is the error even when the byte also broke the token's syntax.
        do throws(XMLError) {
            if buf[pos] != 0x3C { // '<'
                try scanText()
                kind = .text
            } else {
                kind = try scanMarkup()
            }
            if let bad = characters.invalid, bad.offset < baseOffset + pos { throw characterError(bad) }
        } catch {
            throw firstError(error)
        }
        if kind == .text, rootClosed { try checkBlankAfterRoot() }
        if capturing { captured.append(buf + tokenStart, count: pos - tokenStart) }
        return kind
    }

    // The rare paths of `next()`, out of line so that its hot path carries only their branches.

    /// At the end of the input: `.endOfInput` after a complete document, else the truncation.
    @inline(never)
    private mutating func endOfInput() throws(XMLError) -> XMLTokenKind {
        if let open = openElements.last {
            let name = openName(from: open.nameStart)
            throw error(.truncated, "the input ends (at \(baseOffset + end) bytes) before </\(name)> closes the element opened at \(place(of: open.offset))", at: baseOffset + end)
        }
        guard rootStarted else {
            throw error(.truncated, "the input ends (at \(baseOffset + end) bytes) before the root element", at: baseOffset + end)
        }
        kind = .endOfInput
        return kind
    }

    /// The error a failed token reports: a byte that is not an XML character at or before the
    /// token's own error wins.
    @inline(never)
    private func firstError(_ error: XMLError) -> XMLError {
        if let bad = characters.invalid, bad.offset <= error.offset { return characterError(bad) }
        return error
    }

    /// Text after the root element closed must be white space.
    @inline(never)
    private func checkBlankAfterRoot() throws(XMLError) {
        if let text = (tokenStart..<pos).first(where: { !isSpace(buf[$0]) }) {
            throw malformed("text after the root element closed", at: text)
        }
    }

    @inline(never)
    private func characterError(_ bad: XMLCharacterValidator.Invalid) -> XMLError {
        error(bad.isWideEncoding ? .unsupportedEncoding : .malformed, bad.message, at: bad.offset)
    }

    /// Reads the rest of the input after the root element closed, which must hold nothing but
    /// white space, comments and processing instructions (XML 1.0 §2.1 `Misc*`). A reader calls
    /// it when it has what it needs from the root element, so that trailing garbage, a second
    /// root element or damage after the root is an error, not a silent success.
    /// - Throws: as `next()`.
    public mutating func finishDocument() throws(XMLError) {
        while try next() != .endOfInput {}
    }

    /// Character data up to the next '<' or the end of the input.
    private mutating func scanText() throws(XMLError) {
        while true {
            pos = XMLByteSearch.firstIndex(of: 0x3C, in: buf, from: pos, to: end)
            if pos < end { return }
            if discardsText { tokenStart = pos }
            // A text token may end at the end of the input.
            guard try ensure(1) else { return }
        }
    }

    /// Scans forward to just past `terminator` (2 or 3 bytes), refilling as needed.
    private mutating func skip(past terminator: StaticString, what: StaticString) throws(XMLError) {
        let t = terminator.utf8Start
        let tn = terminator.utf8CodeUnitCount
        while true {
            guard try ensure(tn) else { throw truncated(what) }
            if let hit = memchr(buf + pos, Int32(t[0]), end - pos - tn + 1) {
                let i = buf.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var match = true
                for k in 1..<tn where buf[i + k] != t[k] { match = false; break }
                if match { pos = i + tn; return }
                pos = i + 1
            } else {
                pos = end - tn + 1
            }
        }
    }

    /// The byte `ahead` places after `pos`, refilling as needed.
    @inline(__always)
    private mutating func peek(_ ahead: Int = 0, what: StaticString) throws(XMLError) -> UInt8 {
        guard try ensure(ahead + 1) else { throw truncated(what) }
        return buf[pos + ahead]
    }

    private mutating func scanMarkup() throws(XMLError) -> XMLTokenKind {
        let second = try peek(1, what: "a tag")
        switch second {
        case 0x2F: // '</'
            pos += 2
            // Fast path: the expected name followed by '>' (the name stack says which).
            if let open = openElements.last {
                let n = openNames.count - open.nameStart
                if end - pos > n, buf[pos + n] == 0x3E, Self.bytesEqual(openNames.base + open.nameStart, buf + pos, n) {
                    nameLo = pos - tokenStart
                    nameHi = nameLo + n
                    pos += n + 1
                    openNames.removeLast(n)
                    openElements.removeLast()
                    rootClosed = openElements.count == 0
                    return .endTag
                }
            }
            try scanName(what: "an end tag")
            while isSpace(try peek(what: "an end tag")) { pos += 1 }
            guard buf[pos] == 0x3E else { throw malformed("expected '>' to end </\(nameString)>", at: pos) }
            pos += 1
            try closeElement()
            return .endTag
        case 0x3F: // '<?'
            pos += 2
            try skip(past: "?>", what: "a processing instruction")
            return .processingInstruction
        case 0x21: // '<!'
            let third = try peek(2, what: "markup")
            if third == 0x2D {
                guard try peek(3, what: "a comment") == 0x2D else { throw malformed("expected '<!--'", at: pos) }
                pos += 4
                try skip(past: "-->", what: "a comment")
                return .comment
            }
            if third == 0x5B { // '<![CDATA['
                let prefix: [UInt8] = Array("<![CDATA[".utf8)
                for k in 0..<prefix.count where try peek(k, what: "a CDATA section") != prefix[k] {
                    throw malformed("expected '<![CDATA['", at: pos)
                }
                guard depth > 0 else { throw malformed("CDATA outside the root element", at: pos) }
                pos += prefix.count
                try skip(past: "]]>", what: "a CDATA section")
                return .cdata
            }
            // <!DOCTYPE …> with an optional [internal subset].
            pos += 2
            var inSubset = false
            var quote: UInt8 = 0
            while true {
                let c = try peek(what: "a document type declaration")
                pos += 1
                if quote != 0 { if c == quote { quote = 0 }; continue }
                switch c {
                case 0x22, 0x27: quote = c
                case 0x5B: inSubset = true
                case 0x5D: inSubset = false
                case 0x3E where !inSubset: return .doctype
                default: break
                }
            }
        default:
            pos += 1
            try scanName(what: "a start tag")
            if depth == 0 {
                guard !rootClosed else { throw malformed("a second root element <\(nameString)> after the first closed", at: tokenStart) }
                rootStarted = true
            }
            try scanAttributes()
            if selfClosing { rootClosed = rootClosed || depth == 0 } else { openElement() }
            return .startTag
        }
    }

    @inline(__always)
    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

    /// Whether a byte may be part of a name (XML 1.0 §2.3), approximated on bytes: every
    /// non-ASCII byte is allowed (names are UTF-8), ASCII letters, digits, '-', '.', '_', ':'.
    private static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x80...0xFF, 0x41...0x5A, 0x61...0x7A, 0x30...0x3A, 0x2D, 0x2E, 0x5F: true
        default: false
        }
    }

    /// `isNameByte` of every byte value, 1 or 0: one load per byte in the name loops (the bit
    /// masks it replaced took ten instructions a byte). Each scanner holds it in `nameBytes`,
    /// so the loops do not pass through the lazy initializer's check.
    // nonisolated(unsafe): written once by the lazy initializer, only read after.
    private nonisolated(unsafe) static let nameByteTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for c in 0...255 { table[c] = isNameByte(UInt8(c)) ? 1 : 0 }
        return UnsafePointer(table)
    }()

    /// Advances `pos` over name bytes inside the window.
    @inline(__always)
    private mutating func skipNameBytes() {
        var p = pos
        let b = buf, e = end, table = nameBytes
        while p < e, table[Int(b[p])] != 0 { p += 1 }
        pos = p
    }

    private mutating func scanName(what: StaticString) throws(XMLError) {
        nameLo = pos - tokenStart
        while true {
            skipNameBytes()
            if pos < end { break }
            guard try ensure(1) else { throw truncated(what) }
        }
        nameHi = pos - tokenStart
        guard nameHi > nameLo else { throw malformed("expected an element name", at: pos) }
        let first = buf[tokenStart + nameLo]
        guard !(first >= 0x30 && first <= 0x39) && first != 0x2D && first != 0x2E else {
            throw malformed("an element name cannot start with '\(Character(Unicode.Scalar(first)))'", at: tokenStart + nameLo)
        }
    }

    private mutating func scanAttributes() throws(XMLError) {
        attributeCount = 0
        selfClosing = false
        while true {
            var c = try peek(what: "a start tag")
            var sawSpace = false
            while isSpace(c) { pos += 1; sawSpace = true; c = try peek(what: "a start tag") }
            if c == 0x3E { pos += 1; return }
            if c == 0x2F {
                guard try peek(1, what: "a start tag") == 0x3E else { throw malformed("expected '/>'", at: pos) }
                pos += 2
                selfClosing = true
                return
            }
            guard sawSpace else { throw malformed("expected a space before attribute", at: pos) }
            let nlo = pos - tokenStart
            while true {
                skipNameBytes()
                if pos < end { break }
                guard try ensure(1) else { throw truncated("a start tag") }
            }
            let nhi = pos - tokenStart
            guard nhi > nlo else { throw malformed("unexpected '\(Character(Unicode.Scalar(buf[pos])))' in a start tag", at: pos) }
            while isSpace(try peek(what: "a start tag")) { pos += 1 }
            guard buf[pos] == 0x3D else { throw malformed("expected '=' after attribute name", at: pos) }
            pos += 1
            while isSpace(try peek(what: "a start tag")) { pos += 1 }
            let quote = buf[pos]
            guard quote == 0x22 || quote == 0x27 else { throw malformed("expected a quoted attribute value", at: pos) }
            pos += 1
            let vlo = pos - tokenStart
            // The value up to its closing quote, in one inline pass (values are short: coordinates,
            // keys, ids), checking that it holds no '<'.
            while true {
                pos = XMLByteSearch.firstIndex(of: quote, or: 0x3C, in: buf, from: pos, to: end)
                if pos < end {
                    guard buf[pos] == quote else { throw malformed("'<' in an attribute value", at: pos) }
                    break
                }
                guard try ensure(1) else { throw truncated("an attribute value") }
            }
            for k in 0..<attributeCount {
                let other = attributeSlots[k]
                if other.nameHi - other.nameLo == nhi - nlo, Self.bytesEqual(buf + tokenStart + other.nameLo, buf + tokenStart + nlo, nhi - nlo) {
                    throw malformed("duplicate attribute '\(string((tokenStart + nlo)..<(tokenStart + nhi)))'", at: tokenStart + nlo)
                }
            }
            attributeSlots.set(AttributeSlot(nameLo: nlo, nameHi: nhi, valueLo: vlo, valueHi: pos - tokenStart), at: attributeCount)
            attributeCount += 1
            pos += 1
        }
    }

    private mutating func openElement() {
        openElements.append(OpenElement(nameStart: openNames.count, offset: tokenOffset))
        openNames.append(buf + tokenStart + nameLo, count: nameHi - nameLo)
    }

    private mutating func closeElement() throws(XMLError) {
        guard let open = openElements.last else {
            throw malformed("</\(nameString)> closes nothing", at: tokenStart)
        }
        let n = nameHi - nameLo
        guard openNames.count - open.nameStart == n, Self.bytesEqual(openNames.base + open.nameStart, buf + tokenStart + nameLo, n) else {
            throw malformed("</\(nameString)> does not match <\(openName(from: open.nameStart))> opened at \(place(of: open.offset))", at: tokenStart)
        }
        openNames.removeLast(n)
        openElements.removeLast()
        rootClosed = openElements.count == 0
    }

    /// Whether `n` bytes at `a` and `b` are equal: inline, eight at a time, for the short names
    /// of end tags (a `memcmp` call costs more than the comparison).
    @inline(__always)
    private static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i += 8
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// The name of the open element whose name starts at `start` in `openNames` (for messages).
    private func openName(from start: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: openNames.base + start, count: openNames.count - start), as: UTF8.self)
    }
}
