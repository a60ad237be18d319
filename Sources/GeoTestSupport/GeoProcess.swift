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

    /// Runs a program, writing `stdin` to it and collecting both outputs until it exits.
    public static func run(_ executable: URL, _ arguments: [String], stdin: Data = Data(), environment: [String: String]? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Drain both outputs concurrently so a full pipe never blocks the child.
        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        for (pipe, box) in [(output, outBox), (error, errBox)] {
            group.enter()
            DispatchQueue.global().async {
                box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
        }
        try input.fileHandleForWriting.write(contentsOf: stdin)
        try input.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: outBox.data, as: UTF8.self),
                             stderr: String(decoding: errBox.data, as: UTF8.self))
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

/// A result slot written by one drain thread before `DispatchGroup.leave()` and read after `wait()`.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
