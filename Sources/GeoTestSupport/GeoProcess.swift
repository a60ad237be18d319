public import Foundation
public import SystemIO

/// Runs the built `geo` executable (or any program) end to end, as ArgumentParser's
/// `AssertExecuteCommand` does, feeding standard input and capturing both outputs.
public struct ProcessResult: Sendable {
    /// How the program ended.
    public var exit: ExitStatus
    /// The exit code, or 128 + the signal that ended it (the shell's `$?`).
    public var status: Int32 { exit.shellStatus }
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
    public static func geo(_ arguments: [String], stdin: String = "", environment: [String: String]? = nil) async throws -> ProcessResult {
        try await run(geoExecutable, arguments, stdin: Data(stdin.utf8), environment: environment)
    }

    /// Runs a program with `stdin` as its standard input and collects both outputs once it exits,
    /// suspending (not blocking a thread) meanwhile.
    ///
    /// Input and outputs go through files in a fresh temporary folder, not pipes, so no thread
    /// has to drain them. The program runs in a process group of its own: one still running after
    /// `timeout` is killed with everything it started, and the test fails with
    /// ``ChildProcessError`` instead of hanging the suite.
    public static func run(_ executable: URL, _ arguments: [String], stdin: Data = Data(),
                           environment: [String: String]? = nil, timeout: Duration = .seconds(300)) async throws -> ProcessResult {
        try await withTemporaryDirectory("GeoProcess") { dir in
            let input = dir.appendingPathComponent("stdin"), output = dir.appendingPathComponent("stdout"), error = dir.appendingPathComponent("stderr")
            try stdin.write(to: input)
            let exit = try await ChildProcess.run(.init(
                executable: executable.path, arguments: arguments, environment: environment,
                standardInput: .file(input.path), standardOutput: .file(output.path), standardError: .file(error.path),
                newProcessGroup: true
            ), timeout: timeout)
            return ProcessResult(exit: exit,
                                 stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
                                 stderr: String(decoding: try Data(contentsOf: error), as: UTF8.self))
        }
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
