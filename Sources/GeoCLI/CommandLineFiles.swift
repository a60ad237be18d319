import ArgumentParser
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

    /// A byte sink creating or truncating `path` (nil or `-`: standard output).
    /// - Throws: `ValidationError` naming the path and errno.
    static func sink(_ path: String?) throws -> FileSink {
        guard let path, path != "-" else { return FileSink(.standardOutput) }
        do { return FileSink(try FileDescriptor.create(path), path: path) } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Closes the file behind `sink`, unless it is standard output.
    static func close(_ sink: FileSink) {
        if sink.descriptor != .standardOutput { try? sink.descriptor.close() }
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
