import Foundation
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
                guard let head = try readLine(&buffer, through: "\r\n\r\n", limit: Self.maximumHeadBytes) else { return nil }
                try parseHead(head)
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
        let line = buffer.readBytes(length: end)!
        buffer.moveReaderIndex(forwardBy: terminator.utf8CodeUnitCount)
        offset += end + terminator.utf8CodeUnitCount
        return line
    }

    /// Reads the status and the framing headers of a head (the bytes before its blank line).
    private mutating func parseHead(_ head: [UInt8]) throws(HTTPResponseError) {
        let start = offset - head.count - 4
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        let statusLine = lines[0]
        // "HTTP/1.x NNN reason"
        guard statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)), statusLine[statusLine.startIndex + 8] == UInt8(ascii: " "),
              let status = Int(String(decoding: statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)], as: UTF8.self)),
              (100...999).contains(status)
        else {
            throw HTTPResponseError(offset: start, reason: "not an HTTP/1.x status line")
        }
        var length: Int?, chunked = false, closes = statusLine[statusLine.startIndex + 7] == UInt8(ascii: "0")
        var lineOffset = start + statusLine.count + 2
        for line in lines.dropFirst() {
            defer { lineOffset += line.count + 2 }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw HTTPResponseError(offset: lineOffset, reason: "header line without a colon")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
            switch name {
            case "content-length":
                guard let n = Int(value), n >= 0, length == nil || length == n else {
                    throw HTTPResponseError(offset: lineOffset, reason: "Content-Length '\(value)' is not one length")
                }
                length = n
            case "transfer-encoding":
                chunked = value.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) == "chunked" } ?? false
            case "connection":
                if value.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "close" }) { closes = true }
            default:
                continue
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
}

/// A reply `geo loadgen` cannot frame: what is wrong and where, bytes from the connection's start.
struct HTTPResponseError: Error, Equatable, CustomStringConvertible {
    var offset: Int
    var reason: String
    var description: String { "HTTP response at byte \(offset): \(reason)" }
}
