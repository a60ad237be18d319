import Platform

/// The input a program's path argument names (`geo … FILE`): `-` is standard input, as `-` is
/// standard output to `StandardOutput.withOutput`; any other path is a file, checked before a
/// reader opens it so that a missing file or a directory is told as such, not as a read error.
extension FileSource {
    /// Why `path` is no file to read: "no such file" (missing, or under something that is not
    /// a directory), "a directory, not a file", else the system's reason (`strerror`, e.g.
    /// "Permission denied" for a folder on its way that cannot be searched); nil for a file
    /// (`stat(2)` succeeds, not a directory) and for `-`.
    public static func inputProblem(at path: String) -> String? {
        guard path != "-" else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let e = errno
            return e == ENOENT || e == ENOTDIR ? "no such file" : String(cString: strerror(e))
        }
        return info.st_mode & S_IFMT == S_IFDIR ? "a directory, not a file" : nil
    }

    /// Reads the input `path` names: standard input for `-`, else the file, opened (close it
    /// with ``closeInput()``).
    /// - Throws: `SystemIOError` naming `path` when it cannot be opened.
    public init(input path: String) throws(SystemIOError) {
        if path == "-" { self.init(.standardInput) } else { self.init(try FileDescriptor(opening: path), path: path) }
    }

    /// Closes a file ``init(input:)`` opened; standard input stays open.
    public func closeInput() {
        if descriptor.rawValue != FileDescriptor.standardInput.rawValue { try? descriptor.close() }
    }
}
