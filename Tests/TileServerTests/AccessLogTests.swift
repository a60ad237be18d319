import Foundation
import GeoTestSupport
import Testing
@testable import TileServer

/// The access log: every request's line, written in batches of whole lines, its memory bounded.
@Suite struct AccessLogTests {
    @Test func flush_writesEveryLineInOrder_asOneBatch() {
        let writes = NoteList()
        let log = AccessLog(write: { writes.append($0) })
        for i in 0..<1000 { log.append("GET /t/\(i).pbf 200") }
        log.flush()
        log.flush()
        #expect(writes.lines.count == 1, "1000 lines, one write; nothing written when nothing waits")
        let lines = writes.lines.first?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
        #expect(lines.count == 1001 && lines.last == "", "each line ended by a newline")
        #expect(lines.dropLast().map(String.init) == (0..<1000).map { "GET /t/\($0).pbf 200" })
    }

    @Test func pastTheLimit_linesAreDroppedAndCounted() {
        let writes = NoteList()
        // 100 bytes hold ten 9-byte lines with their newlines.
        let log = AccessLog(limit: 100, write: { writes.append($0) })
        for i in 0..<25 { log.append("line \(1000 + i)") }
        log.flush()
        let batch = writes.lines.first ?? ""
        #expect(batch.hasPrefix((0..<10).map { "line \(1000 + $0)\n" }.joined()), "\(batch)")
        #expect(batch.hasSuffix("\n15 access-log lines dropped: written slower than requests came\n"), "\(batch)")
        log.append("line 2000")
        log.flush()
        #expect(writes.lines.last == "line 2000\n", "the count starts again after a batch")
    }

    /// Through the server: one line per request, method, path, status and body bytes, written
    /// while it serves (within a few of the log's 100 ms periods).
    @Test func server_writesOneLinePerRequest() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.pmtiles").path
            try TileServerTests.writeArchive(path)
            let log = NoteList()
            try await TileServerTests.withServer(TileServer.Options(data: [path]), log: log) { port async throws in
                #expect(try await TileServerTests.get(port, "/t/3/2/1.pbf", ["Accept-Encoding: gzip"]).status == 200)
                #expect(try await TileServerTests.get(port, "/t/9/0/0.pbf").status == 404)
                var lines: [Substring] = []
                for _ in 0..<100 where lines.count < 2 {
                    try await Task.sleep(for: .milliseconds(50))
                    lines = log.lines.joined().split(separator: "\n")
                }
                #expect(log.lines.allSatisfy { $0.hasSuffix("\n") }, "whole lines")
                #expect(lines.count == 2 && lines[0].hasPrefix("GET /t/3/2/1.pbf 200 ") && lines[1].hasPrefix("GET /t/9/0/0.pbf 404 "), "\(lines)")
            }
        }
    }
}
