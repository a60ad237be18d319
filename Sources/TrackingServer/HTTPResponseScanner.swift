import NIOCore

/// Finds where each HTTP/1.1 response ends in a connection's byte stream (RFC 9112 §6.3): the
/// status line, the three headers that frame a message (`Content-Length`, `Transfer-Encoding:
/// chunked`, `Connection: close`), then the body skipped by its length, by its chunks, or up
/// to the close. `geo loadgen` needs only the status of each reply, so headers are not kept
/// and the body is counted, not copied. Interim replies (1xx) are skipped; 204 and 304 have
/// no body (the generator sends no HEAD requests).
struct HTTPResponseScanner {
    /// One complete response.
    struct Response: Equatable {
        var status: Int
        /// Body bytes after de-chunking.
        var bodyBytes: Int
        /// The server closes the connection after this response (`Connection: close`, or a
        /// body that ends at the close).
        var closes: Bool
    }

    /// The longest status line and headers accepted, bytes.
    static let maximumHeadBytes = 16 * 1024

    private enum State {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
    }

    private var state = State.head
    private var current = Response(status: 0, bodyBytes: 0, closes: false)
    /// Bytes of the stream consumed so far: the location an error names.
    private(set) var offset = 0

    /// Bytes of a line (the head, a chunk size) that has not ended yet.
    private var stash = ByteBuffer()

    /// The next complete response, consuming its bytes from `input`; nil when `input` ends
    /// inside one: then all of `input` is consumed and what is needed of it remembered.
    mutating func next(_ input: inout ByteBuffer) throws(HTTPResponseError) -> Response? {
        if stash.readableBytes > 0 {
            var working = ByteBuffer()
            swap(&working, &stash) // uniquely referenced: appending does not copy
            working.writeBuffer(&input)
            let response = try scan(&working)
            stash = working
            return response
        }
        let response = try scan(&input)
        if response == nil { stash.writeBuffer(&input) }
        return response
    }

    private mutating func scan(_ buffer: inout ByteBuffer) throws(HTTPResponseError) -> Response? {
        while true {
            switch state {
            case .head:
                guard let end = try lineEnd(in: buffer, through: "\r\n\r\n", limit: Self.maximumHeadBytes) else { return nil }
                // Read in place: the head is not copied out of the buffer.
                try buffer.withUnsafeReadableBytes { bytes in
                    Result { () throws(HTTPResponseError) in try parseHead(UnsafeRawBufferPointer(rebasing: bytes[..<end])) }
                }.get()
                skip(&buffer, end + 4)
            case .body(let remaining):
                let taken = min(remaining, buffer.readableBytes)
                skip(&buffer, taken)
                current.bodyBytes += taken
                if taken < remaining { state = .body(remaining: remaining - taken); return nil }
                return finish()
            case .chunkSize:
                guard let line = try readLine(&buffer, through: "\r\n", limit: 1024) else { return nil }
                let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
                guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                    throw HTTPResponseError(offset: offset - line.count - 2, reason: "chunk size is not hexadecimal")
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let taken = min(remaining, buffer.readableBytes)
                skip(&buffer, taken)
                current.bodyBytes += taken
                if taken < remaining { state = .chunkData(remaining: remaining - taken); return nil }
                state = .chunkEnd
            case .chunkEnd:
                guard buffer.readableBytes >= 2 else { return nil }
                guard buffer.readInteger(as: UInt16.self) == UInt16(0x0D0A) else {
                    throw HTTPResponseError(offset: offset, reason: "chunk data not followed by CRLF")
                }
                offset += 2
                state = .chunkSize
            case .trailers:
                guard let line = try readLine(&buffer, through: "\r\n", limit: Self.maximumHeadBytes) else { return nil }
                if line.isEmpty { return finish() }
            case .untilClose:
                current.bodyBytes += buffer.readableBytes
                skip(&buffer, buffer.readableBytes)
                return nil
            }
        }
    }

    /// At the connection's close: the response whose body ended with it, nil when the stream
    /// ended between responses; an error when it ended inside one.
    mutating func end() throws(HTTPResponseError) -> Response? {
        switch state {
        case .head where stash.readableBytes == 0:
            return nil
        case .untilClose:
            return finish()
        default:
            throw HTTPResponseError(offset: offset, reason: "connection closed inside a response")
        }
    }

    private mutating func finish() -> Response {
        let response = current
        state = .head
        current = Response(status: 0, bodyBytes: 0, closes: false)
        return response
    }

    private mutating func skip(_ buffer: inout ByteBuffer, _ count: Int) {
        buffer.moveReaderIndex(forwardBy: count)
        offset += count
    }

    /// The bytes before `terminator`, consuming both; nil (nothing consumed) when `buffer`
    /// does not hold the terminator yet.
    private mutating func readLine(_ buffer: inout ByteBuffer, through terminator: StaticString, limit: Int) throws(HTTPResponseError) -> [UInt8]? {
        guard let end = try lineEnd(in: buffer, through: terminator, limit: limit) else { return nil }
        let line = buffer.readBytes(length: end)!
        buffer.moveReaderIndex(forwardBy: terminator.utf8CodeUnitCount)
        offset += end + terminator.utf8CodeUnitCount
        return line
    }

    /// Where `terminator` starts in `buffer`'s readable bytes; nil when it is not there yet.
    /// - Throws: when it is not within `limit` bytes.
    private func lineEnd(in buffer: ByteBuffer, through terminator: StaticString, limit: Int) throws(HTTPResponseError) -> Int? {
        let end = buffer.withUnsafeReadableBytes { bytes -> Int? in
            terminator.withUTF8Buffer { t -> Int? in
                guard bytes.count >= t.count else { return nil }
                var i = 0
                while i <= bytes.count - t.count {
                    if bytes[i] == t[0] {
                        var k = 1
                        while k < t.count, bytes[i + k] == t[k] { k += 1 }
                        if k == t.count { return i }
                    }
                    i += 1
                }
                return nil
            }
        }
        guard let end else {
            if buffer.readableBytes > limit { throw HTTPResponseError(offset: offset, reason: "no line end within \(limit) bytes") }
            return nil
        }
        if end > limit { throw HTTPResponseError(offset: offset, reason: "no line end within \(limit) bytes") }
        return end
    }

    /// Reads the status and the framing headers of a head (the bytes before its blank line),
    /// in place: names compared without regard to case and values without their optional
    /// whitespace (RFC 9110 §5.1, §5.6.3), no string made per line (the Foundation trimming and
    /// lowercasing this replaced were 10 % of the generator's CPU time, `perf`).
    private mutating func parseHead(_ head: UnsafeRawBufferPointer) throws(HTTPResponseError) {
        let start = offset
        // Lines end at LF, a CR before it dropped.
        func lineEnd(from i: Int) -> (end: Int, next: Int) {
            var j = i
            while j < head.count, head[j] != UInt8(ascii: "\n") { j += 1 }
            return (j > i && head[j - 1] == UInt8(ascii: "\r") ? j - 1 : j, j + 1)
        }
        let (statusEnd, afterStatus) = lineEnd(from: 0)
        // "HTTP/1.x NNN reason"
        guard statusEnd >= 12, head.starts(with: "HTTP/1.".utf8), head[8] == UInt8(ascii: " "),
              let status = Self.decimal(head, 9..<12), (100...999).contains(status)
        else {
            throw HTTPResponseError(offset: start, reason: "not an HTTP/1.x status line")
        }
        var length: Int?, chunked = false, closes = head[7] == UInt8(ascii: "0")
        var i = afterStatus
        while i <= head.count {
            let (end, next) = lineEnd(from: i)
            defer { i = next }
            var colon = i
            while colon < end, head[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < end else { throw HTTPResponseError(offset: start + i, reason: "header line without a colon") }
            let name = i..<colon, value = Self.trimmed(head, colon + 1..<end)
            if Self.matches(head, name, "content-length") {
                guard let n = Self.decimal(head, value), length == nil || length == n else {
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: head[value]), as: UTF8.self).lowercased()
                    throw HTTPResponseError(offset: start + i, reason: "Content-Length '\(text)' is not one length")
                }
                length = n
            } else if Self.matches(head, name, "transfer-encoding") {
                let last = Self.elements(head, value).last
                chunked = last.map { Self.matches(head, $0, "chunked") } ?? false
            } else if Self.matches(head, name, "connection") {
                if Self.elements(head, value).contains(where: { Self.matches(head, $0, "close") }) { closes = true }
            }
        }
        current = Response(status: status, bodyBytes: 0, closes: closes)
        if status < 200 {
            state = .head // interim: the final response follows
        } else if status == 204 || status == 304 {
            state = .body(remaining: 0)
        } else if chunked {
            state = .chunkSize
        } else if let length {
            state = .body(remaining: length)
        } else {
            current.closes = true
            state = .untilClose
        }
    }

    /// Whether `bytes[range]` is `lowercase` (ASCII letters in either case).
    private static func matches(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { word in
            guard range.count == word.count else { return false }
            for k in 0..<word.count {
                var b = bytes[range.lowerBound + k]
                if b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") { b |= 0x20 }
                if b != word[k] { return false }
            }
            return true
        }
    }

    /// `bytes[range]` as a non-negative decimal number of at most 15 digits; nil for other text.
    private static func decimal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 15 else { return nil }
        var n = 0
        for i in range {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            n = n * 10 + Int(d)
        }
        return n
    }

    /// `range` without the spaces and tabs at its ends.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
        var (a, b) = (range.lowerBound, range.upperBound)
        while a < b, bytes[a] == UInt8(ascii: " ") || bytes[a] == UInt8(ascii: "\t") { a += 1 }
        while b > a, bytes[b - 1] == UInt8(ascii: " ") || bytes[b - 1] == UInt8(ascii: "\t") { b -= 1 }
        return a..<b
    }

    /// The comma-separated elements of a list value (RFC 9110 §5.6.1), each trimmed; nothing
    /// between two commas is no element.
    private static func elements(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> [Range<Int>] {
        var found: [Range<Int>] = [], start = range.lowerBound
        for i in range.lowerBound...range.upperBound where i == range.upperBound || bytes[i] == UInt8(ascii: ",") {
            if i > start { found.append(trimmed(bytes, start..<i)) }
            start = i + 1
        }
        return found
    }
}

/// A reply `geo loadgen` cannot frame: what is wrong and where, bytes from the connection's start.
struct HTTPResponseError: Error, Equatable, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "HTTP response at byte \(offset): \(reason)" }
}
