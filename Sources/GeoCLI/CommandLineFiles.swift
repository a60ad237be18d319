import ArgumentParser
import GPXCodec
import SystemIO

/// The files `geo` commands name on the command line, opened through SystemIO: `-` is
/// standard input or output.
enum CommandLineFiles {
    /// A byte source reading `path` (`-`: standard input).
    /// - Throws: `ValidationError` naming the path and errno.
    static func source(_ path: String) throws -> FileSource {
        if path == "-" { return FileSource(.standardInput) }
        do { return FileSource(try FileDescriptor(opening: path), path: path) } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Runs `body` with a byte source reading `path` (`-`: standard input), then closes the file.
    /// - Throws: `ValidationError` when it cannot be opened, or what `body` throws.
    static func withSource<Result>(_ path: String, _ body: (inout FileSource) throws -> Result) throws -> Result {
        var source = try source(path)
        defer { if path != "-" { try? source.descriptor.close() } }
        return try body(&source)
    }

    /// Runs `body` with the sink for a command's output `path` (`-o`): ``StandardOutput`` for
    /// nil or `-`, else the file by `AtomicFileReplacement`'s rules: a regular file is replaced
    /// only once `body` succeeds, a FIFO or device is written through, a symbolic link to a
    /// regular file is refused.
    /// - Throws: `SystemIOError` naming the path, or what `body` throws (the old file then stays).
    static func withOutput(_ path: String?, _ body: (inout any GPXByteSink) throws -> Void) throws {
        guard let path, path != "-" else {
            var sink: any GPXByteSink = standardOutput
            return try body(&sink)
        }
        let replacement = try AtomicFileReplacement(replacing: path)
        do {
            var sink: any GPXByteSink = FileSink(replacement.descriptor, path: path)
            try body(&sink)
            try replacement.commit()
            try replacement.descriptor.close()
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// Reads `path` (`-`: standard input) in chunks of up to 64 KiB.
    /// - Throws: `ValidationError` when it cannot be opened, `SystemIOError` on a read error.
    static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        try withSource(path) { source in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { return }
                chunk.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }
}

extension GPXByteSink {
    /// Writes the UTF-8 of `text`.
    mutating func write(text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}
