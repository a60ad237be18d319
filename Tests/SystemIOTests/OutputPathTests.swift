import Foundation
import GeoTestSupport
import Testing
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

// AtomicFileReplacement's rules for what a path names: regular files replaced atomically,
// special files written through, symbolic links to regular files refused.

@Test func atomicReplacement_regularFile_keepsItsPermissionBits() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("script.sh").path
        try AtomicFileReplacement.write(Array("old".utf8), to: path)
        #expect(chmod(path, 0o750) == 0)
        try AtomicFileReplacement.write(Array("new".utf8), to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o750)
        #expect(try FileDescriptor.readContents(of: path) == Array("new".utf8))
    }
}

@Test func atomicReplacement_plantedLinkAtTheTemporaryName_isNotFollowed() throws {
    try withTemporaryDirectory { dir in
        let victim = dir.appendingPathComponent("victim").path, path = dir.appendingPathComponent("out.gpx").path
        try AtomicFileReplacement.write(Array("victim".utf8), to: victim)
        #expect(symlink(victim, dir.appendingPathComponent(".out.gpx.tmp").path) == 0)
        try AtomicFileReplacement.write(Array("result".utf8), to: path)
        #expect(try FileDescriptor.readContents(of: victim) == Array("victim".utf8))
        #expect(try FileDescriptor.readContents(of: path) == Array("result".utf8))
    }
}

@Test func atomicReplacement_fifo_isWrittenThrough_andStaysAFifo() throws {
    try withTemporaryDirectory { dir in
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader opens first without blocking, so the writer's open finds it.
        let reader = try FileDescriptor(opening: fifo, .readOnly, options: FileDescriptor.Options(rawValue: O_NONBLOCK))
        defer { try? reader.close() }
        try AtomicFileReplacement.write(Array("through the fifo\n".utf8), to: fifo)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(Array(buffer[0..<n]) == Array("through the fifo\n".utf8))
        var info = stat()
        #expect(lstat(fifo, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO, not replaced by a regular file")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["pipe"], "no temporary file left")
    }
}

@Test func atomicReplacement_device_andLinkToDevice_areWrittenThrough() throws {
    try withTemporaryDirectory { dir in
        let link = dir.appendingPathComponent("null").path
        #expect(symlink("/dev/null", link) == 0)
        for path in ["/dev/null", link] {
            let replacement = try AtomicFileReplacement(replacing: path)
            #expect(replacement.writesThrough, "\(path)")
            try replacement.descriptor.writeAll("x")
            try replacement.commit()
            try replacement.descriptor.close()
        }
        var info = stat()
        #expect(lstat(link, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        // A full device is an error naming it, not a crash.
        let error = #expect(throws: SystemIOError.self) { try AtomicFileReplacement.write([1, 2, 3], to: "/dev/full") }
        #expect(error?.code == .noSpace)
        #expect(error?.path == "/dev/full")
    }
}

@Test func atomicReplacement_nameOfAnOpenDescriptor_writesThroughIt_evenOnARegularFile() throws {
    // `geo … -o /dev/stdout > file`: /dev/stdout is a link to the regular file the shell opened,
    // which the link rule alone would refuse; the name of an open descriptor is written through.
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("redirected").path
        let file = try FileDescriptor(opening: path, .writeOnly, options: [.create], permissions: 0o644)
        defer { try? file.close() }
        for name in ["/dev/fd/\(file.rawValue)", "/proc/self/fd/\(file.rawValue)"] {
            let replacement = try AtomicFileReplacement(replacing: name)
            #expect(replacement.writesThrough, "\(name)")
            try replacement.descriptor.writeAll("ab")
            try replacement.commit()
            try replacement.descriptor.close()
        }
        #expect(try FileDescriptor.readContents(of: path) == Array("abab".utf8), "both writes landed, in order")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        try file.writeAll("c") // the original descriptor is still open
    }
}

@Test func atomicReplacement_inAMissingFolder_namesThePathAsGiven_notTheTemporaryName() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("missing/out.pbf").path
        let error = #expect(throws: SystemIOError.self) { try AtomicFileReplacement(replacing: path) }
        #expect(error?.code == .notFound)
        #expect(error?.description == "cannot write \(path): No such file or directory")
    }
}

@Test func atomicReplacement_linkToRegularFile_orDangling_isRefused_andNothingChanges() throws {
    try withTemporaryDirectory { dir in
        let other = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let target = other.appendingPathComponent("target.gpx").path
        try AtomicFileReplacement.write(Array("target".utf8), to: target)
        let link = dir.appendingPathComponent("out.gpx").path, dangling = dir.appendingPathComponent("dangling.gpx").path
        #expect(symlink(target, link) == 0)
        #expect(symlink(other.appendingPathComponent("new.gpx").path, dangling) == 0)
        for path in [link, dangling] {
            let error = #expect(throws: SystemIOError.self, "\(path)") { try AtomicFileReplacement.write(Array("x".utf8), to: path) }
            #expect(error?.code == .symbolicLink)
            #expect(error?.path == path)
        }
        #expect(try FileDescriptor.readContents(of: target) == Array("target".utf8))
        #expect(!FileManager.default.fileExists(atPath: other.appendingPathComponent("new.gpx").path))
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
    }
}
