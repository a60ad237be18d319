public import GeoCore
import Platform

/// Geoid grids from files: PROJ's EGM96 grid where PROJ's data is installed (Debian
/// `proj-data`, Homebrew `proj`), so a geoid height matches PROJ's; GeoCore parses the bytes
/// (`Geoid(gtx:name:)`). There is no built-in copy: without PROJ's data, heights that need a
/// geoid model stay unknown rather than approximate.
public enum GeoidGridFiles {
    /// PROJ's file name for EGM96 on a 15' grid.
    public static let egm96FileName = "egm96_15.gtx"

    /// The folders PROJ looks in for grids: those `PROJ_DATA` (PROJ ≥ 9.1), else `PROJ_LIB`,
    /// lists (`:`-separated) when set, as PROJ does; else the usual install prefixes.
    /// - Parameter environment: reads a variable; the process environment by default.
    public static func projDataFolders(environment: (String) -> String? = processEnvironment) -> [String] {
        if let listed = environment("PROJ_DATA") ?? environment("PROJ_LIB"), !listed.isEmpty {
            return listed.split(separator: ":").map(String.init)
        }
        return ["/usr/share/proj", "/usr/local/share/proj", "/opt/homebrew/share/proj"]
    }

    /// PROJ's 15' EGM96 grid from the first PROJ data folder that has it, or nil when none does.
    /// - Throws: `SystemIOError` when the file is there but cannot be read, `GeoCoreError`
    ///   (`.invalidGeoidGrid`, with the path) when it is not a GTX grid.
    /// - Complexity: O(file size), about 4 MB.
    public static func projEGM96(environment: (String) -> String? = processEnvironment) throws -> Geoid? {
        for folder in projDataFolders(environment: environment) {
            let path = folder + "/" + egm96FileName
            guard let bytes = try FileDescriptor.readContentsIfPresent(of: path) else { continue }
            return try Geoid(gtx: bytes, name: "EGM96 (15' grid, \(path))")
        }
        return nil
    }

    /// A variable of this process's environment.
    public static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
