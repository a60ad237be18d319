public import Foundation

/// Locates the shared real-world data (`../shared/data`, see its README) for tests.
///
/// Tests call `try Fixtures.require("nmea/hemi.log")`: when the data folder is absent the
/// test is skipped with a message, unless `CI` is set, where absence is a failure.
public enum Fixtures {
    /// The data root: `LOCATIONKIT_DATA`, else `../shared/data` beside the package root.
    public static var dataRoot: URL {
        if let env = ProcessInfo.processInfo.environment["LOCATIONKIT_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env, isDirectory: true)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }

    /// The package root, found from this source file's compile-time path.
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // GeoTestSupport
            .deletingLastPathComponent() // Sources
            .deletingLastPathComponent()
    }

    /// Whether the run is CI (`CI` set to anything but empty or `false`).
    public static var isCI: Bool {
        guard let v = ProcessInfo.processInfo.environment["CI"] else { return false }
        return !v.isEmpty && v.lowercased() != "false"
    }

    /// The URL of a data file, or nil when the data folder is missing outside CI.
    ///
    /// - Throws: `FixtureError.missing` when the file is absent and `CI` is set.
    public static func url(_ relativePath: String) throws -> URL? {
        let url = dataRoot.appendingPathComponent(relativePath)
        if FileManager.default.fileExists(atPath: url.path) { return url }
        if isCI { throw FixtureError.missing(url.path) }
        print("note: skipping, shared data not found at \(url.path) (set LOCATIONKIT_DATA)")
        return nil
    }

    /// All files directly inside a data folder with the given extension, sorted by name.
    public static func files(in folder: String, withExtension ext: String) throws -> [URL]? {
        guard let dir = try url(folder) else { return nil }
        return try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == ext }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

/// Why a fixture could not be had.
public enum FixtureError: Error, CustomStringConvertible {
    case missing(String)

    public var description: String {
        switch self {
        case .missing(let path): "shared data file \(path) is missing, and CI must not skip it"
        }
    }
}
