public import Foundation

/// Runs the built `geo` executable (or any program) end to end, as ArgumentParser's
/// `AssertExecuteCommand` does, feeding standard input and capturing both outputs.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output, as UTF-8.
    public var stdout: String
    /// Everything written to standard error, as UTF-8.
    public var stderr: String
}

public enum GeoProcess {
    /// The folder holding the built products (`geo`, the test bundle).
    public static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
        #else
        // The test runner is itself a product in the products folder.
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        #endif
    }

    /// The path of the built `geo` executable.
    public static var geoExecutable: URL { productsDirectory.appendingPathComponent("geo") }

    /// Runs `geo` with the arguments and standard input given.
    public static func geo(_ arguments: [String], stdin: String = "", environment: [String: String]? = nil) throws -> ProcessResult {
        try run(geoExecutable, arguments, stdin: Data(stdin.utf8), environment: environment)
    }

    /// Runs a program with `stdin` as its standard input and collects both outputs once it exits.
    ///
    /// Input and outputs go through temporary files, not pipes: a pipe needs a reader thread,
    /// and reader threads taken from a shared pool can run out while parallel tests wait on
    /// their children, which then block on a full pipe forever.
    public static func run(_ executable: URL, _ arguments: [String], stdin: Data = Data(), environment: [String: String]? = nil) throws -> ProcessResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geoprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("stdin"), output = dir.appendingPathComponent("stdout"), error = dir.appendingPathComponent("stderr")
        try stdin.write(to: input)
        try Data().write(to: output)
        try Data().write(to: error)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let handles = try (FileHandle(forReadingFrom: input), FileHandle(forWritingTo: output), FileHandle(forWritingTo: error))
        defer { try? handles.0.close(); try? handles.1.close(); try? handles.2.close() }
        process.standardInput = handles.0
        process.standardOutput = handles.1
        process.standardError = handles.2
        try process.run()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: error), as: UTF8.self))
    }

    /// Finds a program on `PATH`, or nil.
    public static func which(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let url = URL(fileURLWithPath: String(dir)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }
}
