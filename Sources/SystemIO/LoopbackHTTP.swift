import Foundation

/// One HTTP/1.1 request to a server on this machine's 127.0.0.1, with `Connection: close`: the
/// client of `geo demo`'s tour of the tracking server and of the server tests. Its reply is read
/// to the end of the connection, its body de-chunked when it was sent chunked.
package enum LoopbackHTTP {
    /// A chunked body that does not follow RFC 9112 §7.1 (a reply broken off), at this byte.
    package struct ChunkError: Error { package var offset: Int }

    /// `blockingRequest` on a thread of its own: its socket calls block, and on the cooperative
    /// pool (2 threads on 2 cores) they could hold every thread a server in the same process
    /// needs to answer them.
    package static func request(port: Int, method: String = "GET", target: String, body: String = "",
                                headers: [String] = []) async throws -> (status: Int, body: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blockingRequest(port: port, method: method, target: target, body: body, headers: headers) })
            }.start()
        }
    }

    /// The request, blocking; the reply's status and body.
    /// - Throws: `SystemIOError` when it cannot connect, write or read; `ChunkError`.
    package static func blockingRequest(port: Int, method: String, target: String, body: String, headers: [String]) throws -> (status: Int, body: String) {
        let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
        defer { try? socket.close() }
        let head = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close", "Content-Length: \(body.utf8.count)"] + headers
        try socket.writeAll(head.joined(separator: "\r\n") + "\r\n\r\n" + body)
        let response = String(decoding: try socket.readToEnd(limit: 1 << 24), as: UTF8.self)
        let status = response.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        guard let end = response.range(of: "\r\n\r\n") else { return (status, "") }
        let payload = String(response[end.upperBound...])
        let chunked = response[..<end.lowerBound].lowercased().contains("\r\ntransfer-encoding: chunked")
        return (status, chunked ? try dechunked(payload) : payload)
    }

    /// A `Transfer-Encoding: chunked` body's content (RFC 9112 §7.1: chunks of a hexadecimal
    /// size line, that many bytes and CRLF, up to a chunk of size 0).
    package static func dechunked(_ payload: String) throws(ChunkError) -> String {
        let bytes = Array(payload.utf8)
        var content: [UInt8] = [], i = 0
        while true {
            guard let lineEnd = bytes[i...].firstIndex(of: 0x0D),
                  let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self).prefix { $0 != ";" }, radix: 16),
                  lineEnd + 2 + size + 2 <= bytes.count else { throw ChunkError(offset: i) }
            if size == 0 { return String(decoding: content, as: UTF8.self) }
            content += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            i = lineEnd + 2 + size + 2
        }
    }
}
