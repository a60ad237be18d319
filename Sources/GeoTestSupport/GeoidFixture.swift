public import GeoCore
import SystemIO

extension Fixtures {
    /// PROJ's EGM96 grid (`egm96_15.gtx`, Debian proj-data, which scripts/setup.sh installs with
    /// proj-bin), read by `GeoidGridFiles`; nil (the test skips, with a note) when absent outside
    /// CI, a failure under CI. Read once per test process (4 MB).
    public static func projEGM96() throws -> Geoid? {
        if let geoid = try projEGM96Once.get() { return geoid }
        if isCI { throw FixtureError.missing(GeoidGridFiles.egm96FileName + " in " + GeoidGridFiles.projDataFolders().joined(separator: ", ")) }
        print("note: skipping, \(GeoidGridFiles.egm96FileName) not found (apt-get install proj-data)")
        return nil
    }

    private static let projEGM96Once = Result { try GeoidGridFiles.projEGM96() }
}
