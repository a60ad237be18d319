import Foundation
import GeoBase
import GeoCore
import GPXCodec
import GeoTestSupport
import Testing
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// Whether `descriptor` has `FD_CLOEXEC` set (`fcntl(F_GETFD)`).
private func isCloseOnExec(_ descriptor: FileDescriptor) -> Bool {
    let flags = fcntl(descriptor.rawValue, F_GETFD)
    return flags >= 0 && flags & FD_CLOEXEC != 0
}

@Test func file_writeThenRead_sameBytes() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        let path = dir + "/bytes.bin"
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let out = try FileDescriptor.create(path)
        try out.writeAll(bytes)
        try out.writeAll("tail")
        try out.close()
        #expect(try FileDescriptor.readContents(of: path) == bytes + Array("tail".utf8))

        let input = try FileDescriptor(opening: path)
        defer { try? input.close() }
        #expect(try input.size() == Int64(bytes.count + 4))
        #expect(try input.read(count: 10, atOffset: 100) == Array(bytes[100..<110]))
        #expect(try input.read(count: 10, atOffset: Int64(bytes.count)) == Array("tail".utf8), "short only at the end")
        #expect(try input.read(count: 10, atOffset: Int64(bytes.count + 4)).isEmpty)
    }
}

/// `FileSource.mapRemaining`: a regular file's bytes from the source's position (a read
/// position or a `pread` offset) to its end, in place and kept after the descriptor is closed,
/// the source left at the end; nil for a pipe, whose bytes are then still there to read.
@Test func fileSource_mapRemaining_mapsARegularFileFromItsPosition_notAPipe() throws {
    try withTemporaryDirectory { directory in
        let path = directory.path + "/mapped.bin"
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let out = try FileDescriptor.create(path)
        try out.writeAll(bytes)
        try out.close()

        let input = try FileDescriptor(opening: path)
        var source = FileSource(input, path: path)
        var head = [UInt8](repeating: 0, count: 5000)
        #expect(try head.withUnsafeMutableBytes { try source.read(into: $0) } == 5000)
        let rest = try #require(try source.mapRemaining())
        var atOffset = FileSource(input, path: path, fromOffset: 4097)
        let fromOffset = try #require(try atOffset.mapRemaining())
        var tail = [UInt8](repeating: 0, count: 16)
        #expect(try tail.withUnsafeMutableBytes { try source.read(into: $0) } == 0, "left at the end")
        #expect(try tail.withUnsafeMutableBytes { try atOffset.read(into: $0) } == 0, "left at the end")
        try input.close()
        #expect(Array(rest.bytes) == Array(bytes[5000...]))
        #expect(Array(fromOffset.bytes) == Array(bytes[4097...]))
    }
    let (reader, writer) = try FileDescriptor.pipe()
    defer { try? reader.close() }
    try writer.writeAll("piped")
    try writer.close()
    var piped = FileSource(reader)
    #expect(try piped.mapRemaining() == nil)
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(try buffer.withUnsafeMutableBytes { try piped.read(into: $0) } == 5)
}

/// `readContentsIfPresent`, the loaders' `read`: a file's bytes; nil for a missing path, a path
/// under a regular file (ENOTDIR) and a directory; an error for any other failure (here a name
/// longer than NAME_MAX, ENAMETOOLONG: root reads files whatever their mode).
@Test func readContentsIfPresent_bytesOrNilWhenAbsent_errorWhenUnreadable() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        try AtomicFileReplacement.write(Array("abc".utf8), to: dir + "/file")
        #expect(try FileDescriptor.readContentsIfPresent(of: dir + "/file") == Array("abc".utf8))
        #expect(try FileDescriptor.readContentsIfPresent(of: dir + "/missing") == nil)
        #expect(try FileDescriptor.readContentsIfPresent(of: dir + "/file/under") == nil)
        #expect(try FileDescriptor.readContentsIfPresent(of: dir) == nil)
        let tooLong = dir + "/" + String(repeating: "n", count: 300) // NAME_MAX is 255 on Linux
        let error = #expect(throws: SystemIOError.self) { try FileDescriptor.readContentsIfPresent(of: tooLong) }
        #expect(error?.code != .notFound)
    }
}

/// `pwrite` overwrites in the middle, extends past the end, and leaves the position alone
/// (the next plain write still appends where the last one ended); `ftruncate` cuts.
@Test func file_writeAtOffset_overwritesAndExtends_positionUnchanged_thenTruncate() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        let path = dir + "/positional.txt"
        let out = try FileDescriptor(opening: path, .readWrite, options: [.create, .truncate])
        try out.writeAll("0123456789")
        try Array("ab".utf8).withUnsafeBytes { try out.writeAll($0, atOffset: 3) }
        try Array("XYZ".utf8).withUnsafeBytes { try out.writeAll($0, atOffset: 9) }
        try out.writeAll("+")
        #expect(try out.read(count: 12, atOffset: 0) == Array("012ab5678X+Z".utf8))
        try out.truncate(toSize: 4)
        #expect(try out.size() == 4)
        try out.close()
        #expect(try FileDescriptor.readContents(of: path) == Array("012a".utf8))
    }
}

@Test func fileSourceAndSink_gpxRoundTrip() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        let path = dir + "/track.gpx"
        let document = try GPXReader.read(bytes: Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="52.52" lon="13.40"><ele>34.5</ele><time>2026-11-23T19:00:00Z</time></trkpt>
            <trkpt lat="52.53" lon="13.41"><time>2026-11-23T19:00:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8))
        let descriptor = try FileDescriptor.create(path)
        _ = try GPXWriter.write(document, to: FileSink(descriptor, path: path))
        try descriptor.close()

        let input = try FileDescriptor(opening: path)
        defer { try? input.close() }
        let sequential = try GPXReader.read(FileSource(input, path: path))
        let positional = try GPXReader.read(FileSource(input, path: path, fromOffset: 0))
        for read in [sequential, positional] {
            let points = read.tracks.first?.segments.first?.points ?? []
            #expect(points.count == 2)
            #expect(abs((points.first?.coordinate.latitude ?? 0) - 52.52) < 1e-9, "latitude within 1e-9°")
            #expect(abs((points.first?.elevation?.meters ?? 0) - 34.5) < 1e-9, "elevation within 1 nm")
        }
    }
}

@Test func open_missingFile_isNotFoundNamingPath() {
    let error = #expect(throws: SystemIOError.self) { try FileDescriptor(opening: "/nonexistent/locationkit/file") }
    #expect(error?.code == .notFound)
    #expect(error?.errno == ENOENT)
    #expect(error?.path == "/nonexistent/locationkit/file")
    #expect(error?.description.contains("/nonexistent/locationkit/file") == true)
}

@Test func open_exclusiveExisting_isAlreadyExists() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        try FileDescriptor.create(dir + "/a").close()
        let error = #expect(throws: SystemIOError.self) {
            try FileDescriptor(opening: dir + "/a", .writeOnly, options: [.create, .exclusive])
        }
        #expect(error?.code == .alreadyExists)
    }
}

@Test func write_devFull_isNoSpace() throws {
    let full = try FileDescriptor(opening: "/dev/full", .writeOnly)
    defer { try? full.close() }
    let error = #expect(throws: SystemIOError.self) { try full.writeAll(Array(repeating: 0x41, count: 4096)) }
    #expect(error?.code == .noSpace)
    #expect(error?.errno == ENOSPC)

    let sink = #expect(throws: SystemIOError.self) { try FileSink(full, path: "/dev/full").write("x") }
    #expect(sink?.code == .noSpace)
    #expect(sink?.path == "/dev/full", "the sink names its file")

    var writer = BufferedWriter(full, capacity: 64)
    writer.write("more than a buffer of output, so the writer has to flush it to the device")
    writer.flush()
    #expect(writer.error?.code == .noSpace, "the buffered writer keeps the first error")
}

@Test func write_closedPipe_isBrokenPipe() throws {
    // Ignored, as every program that writes to pipes must, so the write returns EPIPE.
    signal(SIGPIPE, SIG_IGN)
    let (reader, writer) = try FileDescriptor.pipe()
    try reader.close()
    defer { try? writer.close() }
    let error = #expect(throws: SystemIOError.self) { try writer.writeAll("nobody reads this") }
    #expect(error?.code == .brokenPipe)
    #expect(error?.errno == EPIPE)
    // Remembered for the process, so a command line ends quietly even when a library wrapped it.
    #expect(BrokenPipe.hasOccurred)
}

@Test func bufferedWriter_writesEverythingInOrder() throws {
    let (reader, writer) = try FileDescriptor.pipe()
    defer { try? reader.close() }
    var out = BufferedWriter(writer, capacity: 100)
    var expected = ""
    for i in 0..<50 {
        out.append(Double(i) / 8)
        out.append(byte: UInt8(ascii: " "))
        out.write("line \(i)\n")
        expected += "\(Double(i) / 8) line \(i)\n"
    }
    out.write(String(repeating: "x", count: 300)) // longer than the buffer
    expected += String(repeating: "x", count: 300)
    out.flush()
    #expect(out.error == nil)
    try writer.close()
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while case let n = try chunk.withUnsafeMutableBytes({ try reader.read(into: $0) }), n > 0 {
        received += chunk[0..<n]
    }
    #expect(String(decoding: received, as: UTF8.self) == expected)
}

@Test func atomicReplacement_commit_replacesFile() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        let path = dir + "/graph.bin"
        try AtomicFileReplacement.write(Array("old".utf8), to: path)
        try AtomicFileReplacement.write(Array("new contents".utf8), to: path)
        #expect(try FileDescriptor.readContents(of: path) == Array("new contents".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["graph.bin"], "no temporary file left")
    }
}

@Test func atomicReplacement_failure_leavesOldFileIntact() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        let path = dir + "/log.gpx"
        try AtomicFileReplacement.write(Array("old".utf8), to: path)

        // Written but not committed (a crash or an error before the rename), then discarded.
        let replacement = try AtomicFileReplacement(replacing: path)
        try replacement.descriptor.writeAll(Array("half of the new".utf8))
        #expect(try FileDescriptor.readContents(of: path) == Array("old".utf8), "the old file until the rename")
        replacement.discard()
        #expect(try FileDescriptor.readContents(of: path) == Array("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: replacement.temporaryPath))

        // A rename that fails: the target is a directory that is not empty.
        let blocked = dir + "/blocked"
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
        try FileDescriptor.create(blocked + "/inside").close()
        let error = #expect(throws: SystemIOError.self) { try AtomicFileReplacement.write(Array("x".utf8), to: blocked) }
        #expect(error?.path == blocked)
        #expect(FileManager.default.fileExists(atPath: blocked + "/inside"), "the directory is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["blocked", "log.gpx"], "no temporary file left")
    }
}

@Test func everyDescriptor_isCloseOnExec() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        var opened: [(String, FileDescriptor)] = []
        let created = try FileDescriptor.create(dir + "/file")
        opened.append(("create", created))
        opened.append(("open", try FileDescriptor(opening: dir + "/file", .readWrite)))
        opened.append(("duplicate", try created.duplicate()))
        opened.append(("standard input duplicate", try FileDescriptor.standardInput.duplicate()))
        let (r, w) = try FileDescriptor.pipe()
        opened += [("pipe read end", r), ("pipe write end", w)]
        // A regular file stands in for a serial device (termios is skipped for non-terminals).
        opened.append(("serial", try SerialPort.openDevice(dir + "/file", baud: 9600)))
        let replacement = try AtomicFileReplacement(replacing: dir + "/replaced")
        opened.append(("atomic replacement", replacement.descriptor))
        let server = try TCPServer(port: 0)
        opened.append(("TCP listener", server.descriptor))
        let client = try TCPClient.connect(host: "127.0.0.1", port: server.port)
        opened.append(("TCP client", client))
        let accepted = try server.accept()
        opened.append(("TCP accepted", accepted))
        for (name, descriptor) in opened {
            #expect(isCloseOnExec(descriptor), "\(name) is close-on-exec")
        }
        replacement.discard()
        server.close()
        for (name, descriptor) in opened where name != "atomic replacement" && name != "TCP listener" {
            try descriptor.close()
        }
    }
}

@Test func tcpServer_acceptsClient_exchangesBytes() async throws {
    let server = try TCPServer(port: 0)
    defer { server.close() }
    #expect(server.port > 0, "the system picked a port")
    let client = try TCPClient.connect(host: "localhost", port: server.port)
    let connection = try server.accept()
    defer { try? connection.close() }

    // Client to server through the async reader (it closes the client's socket at the end).
    try client.writeAll("$GPGGA,hello\r\n")
    let sent = try Array("bye".utf8).withUnsafeBytes { try connection.send($0) }
    #expect(sent == 3)
    var fromServer = [UInt8](repeating: 0, count: 3)
    let n = try fromServer.withUnsafeMutableBytes { try client.read(into: $0) }
    #expect(Array(fromServer[0..<n]) == Array("bye".utf8))
    try client.close()

    var received: [UInt8] = []
    for try await chunk in DescriptorReader(try connection.duplicate()).chunks() { received += chunk }
    #expect(String(decoding: received, as: UTF8.self) == "$GPGGA,hello\r\n")
}

/// `close()` wakes a thread blocked in `accept()` and returns only once it has left, and a
/// later `accept()` on the closed server throws: it never runs on the descriptor's number,
/// which the next socket opened here takes (the lowest free one), so it cannot take that
/// server's clients.
@Test func tcpServer_close_endsAccepts_laterAcceptNeverTakesAnotherServersClient() async throws {
    let old = try TCPServer(port: 0)
    let ended = DispatchSemaphore(value: 0)
    Thread {
        _ = try? old.accept()
        ended.signal()
    }.start()
    try await Task.sleep(for: .milliseconds(100)) // into accept(2), most likely
    old.close()
    #expect(ended.wait(timeout: .now() + 5) == .success, "the blocked accept returned")

    let next = try TCPServer(port: 0)
    defer { next.close() }
    let client = try TCPClient.connect(host: "127.0.0.1", port: next.port)
    defer { try? client.close() }
    let stolen = try? old.accept()
    #expect(stolen == nil, "the closed server took the client of the server opened after it")
    if let stolen { try stolen.close() } else { try next.accept().close() }
}

@Test func tcpClient_nothingListening_isConnectionFailed() throws {
    let server = try TCPServer(port: 0)
    let port = server.port
    server.close()
    let error = #expect(throws: SystemIOError.self) { try TCPClient.connect(host: "127.0.0.1", port: port) }
    #expect(error?.code == .connectionFailed)
    #expect(error?.path == "127.0.0.1:\(port)")
}

/// `connect(from:)` connects from the local address asked for (the server's peer is it), and
/// an address this host does not have, or that is no address, fails to connect.
@Test func tcpClient_fromALocalAddress_isThePeerTheServerSees() throws {
    let server = try TCPServer(port: 0)
    defer { server.close() }
    let client = try TCPClient.connect(host: "127.0.0.1", port: server.port, from: "127.0.0.3")
    defer { try? client.close() }
    let connection = try server.accept()
    defer { try? connection.close() }
    var peer = sockaddr_in(), length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let status = withUnsafeMutablePointer(to: &peer) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(connection.rawValue, $0, &length) }
    }
    #expect(status == 0)
    #expect(UInt32(bigEndian: peer.sin_addr.s_addr) == 0x7F00_0003, "the server's peer is 127.0.0.3")
    for address in ["192.0.2.1", "not an address"] {
        let error = #expect(throws: SystemIOError.self) { try TCPClient.connect(host: "127.0.0.1", port: server.port, from: address) }
        #expect(error?.code == .connectionFailed, "\(address)")
    }
}

@Test func tcpServer_portInUse_isBusy() throws {
    let server = try TCPServer(port: 0)
    defer { server.close() }
    // SO_REUSEADDR does not let a second socket listen on a port that is being listened on.
    let error = #expect(throws: SystemIOError.self) { try TCPServer(port: server.port) }
    #expect(error?.code == .busy)
}

@Test func serialPort_unsupportedBaud_isInvalidArgument() {
    let error = #expect(throws: SystemIOError.self) { try SerialPort.openDevice("/dev/null", baud: 1234) }
    #expect(error?.code == .invalidArgument)
}

/// A file is read no faster than its consumer (issue 30: the reader buffered `bufferingNewest`,
/// so a lagging consumer of a long file or a pipe lost the oldest chunks, against NMEASource's
/// promise). A slow consumer of a 100 MB file gets every byte, in order, while the reading
/// thread stays at most `aheadLimit` chunks (of 64 KiB) ahead: the shared file offset (a
/// duplicate descriptor) tells how far it has read.
@Test(.onOwnThread, .timeLimit(.minutes(3))) func descriptorReader_file_isReadAtTheConsumersPace() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("big.bin").path
        let size = 100 * 1_048_576
        let writer = try FileDescriptor.create(path)
        var block = [UInt8](repeating: 0, count: 1_048_576)
        for mebibyte in 0..<100 {
            for i in block.indices { block[i] = UInt8(truncatingIfNeeded: mebibyte &* 31 &+ i / 4096) }
            try writer.writeAll(block)
        }
        try writer.close()
        let file = try FileDescriptor(opening: path)
        let probe = try file.duplicate()
        defer { try? probe.close() }

        var received = 0, checked = true, chunks = 0, furthestAhead = 0
        for try await chunk in DescriptorReader(file).chunks() {
            for k in stride(from: 0, to: chunk.count, by: 997) {
                let offset = received + k
                checked = checked && chunk[k] == UInt8(truncatingIfNeeded: (offset / 1_048_576) &* 31 &+ (offset % 1_048_576) / 4096)
            }
            received += chunk.count
            chunks += 1
            // Slow for the first chunks: the thread has time to run ahead if it would.
            if chunks <= 5 {
                try await Task.sleep(for: .milliseconds(300))
                let read = Int(lseek(probe.rawValue, 0, SEEK_CUR))
                furthestAhead = max(furthestAhead, read - received)
            }
        }
        #expect(received == size, "every byte: \(received) of \(size)")
        #expect(checked, "in order")
        #expect(furthestAhead <= (DescriptorReader.aheadLimit + 1) * 65_536, "read ahead \(furthestAhead) bytes")
    }
}

/// The listing `geo sprites build` packs: files at every depth in byte order, hidden entries and
/// their contents left out, a link to a file listed, a link to a folder not followed (it would
/// loop here); a missing folder and a file are `ENOENT` and `ENOTDIR` naming the path.
@Test func files_underAFolder_recursiveSortedWithoutHiddenOrFolderLinks() throws {
    try withTemporaryDirectory { directory in
        let dir = directory.path
        for folder in ["icons/sub", ".git", "icons/.cache"] { try FileDescriptor.createDirectories(dir + "/" + folder) }
        for file in ["icons/b.svg", "icons/a.png", "icons/sub/z.png", "icons/.hidden.png", "icons/.cache/c.png", ".git/HEAD", "icons/Z.png"] {
            try FileDescriptor.create(dir + "/" + file).close()
        }
        #expect(symlink(dir + "/icons/a.png", dir + "/icons/alias.png") == 0)
        #expect(symlink(dir + "/icons", dir + "/icons/sub/loop") == 0)
        #expect(try FileDescriptor.files(under: dir + "/icons") == ["Z.png", "a.png", "alias.png", "b.svg", "sub/z.png"])
        #expect { try FileDescriptor.files(under: dir + "/none") } throws: { error in
            (error as? SystemIOError).map { $0.errno == ENOENT && $0.path == dir + "/none" } == true
        }
        #expect { try FileDescriptor.files(under: dir + "/icons/a.png") } throws: { error in
            (error as? SystemIOError)?.errno == ENOTDIR
        }
    }
}

/// A whole-file read with a bound refuses what is larger — a regular file by its size (a
/// sparse gigabyte, with nothing read), a device once the bound is passed — and returns a file
/// of exactly the bound whole: never the first bytes of a larger file as if they were all.
@Test func readContents_withALimit_refusesLargerFiles_neverCutsThem() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("f").path
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: path))
        #expect(try FileDescriptor.readContents(of: path, limit: 100) == [UInt8](repeating: 7, count: 100))
        #expect(throws: SystemIOError.self) { try FileDescriptor.readContents(of: path, limit: 99) }
        let huge = dir.appendingPathComponent("huge").path
        FileManager.default.createFile(atPath: huge, contents: nil)
        let fd = try FileDescriptor(opening: huge, .writeOnly)
        #expect(ftruncate(fd.rawValue, 1 << 30) == 0)
        try fd.close()
        let big = #expect(throws: SystemIOError.self) { try FileDescriptor.readContents(of: huge, limit: 1 << 20) }
        #expect(big?.code == .tooLarge && big?.path == huge && big?.message.contains("1073741824") == true, "\(String(describing: big))")
        let endless = #expect(throws: SystemIOError.self) { try FileDescriptor.readContents(of: "/dev/zero", limit: 4096) }
        #expect(endless?.code == .tooLarge, "\(String(describing: endless))")
    }
}
