import MapView

/// The world base of snapshots and the map view (`WorldBase(folder:read:)`), read through SystemIO.
enum WorldBaseFiles {
    /// - Throws: `CommandLineFileError.damaged` naming the folder.
    static func load(environment: [String: String]) throws -> WorldBase {
        let folder = WorldBase.folder(environment: environment)
        do { return try WorldBase(folder: folder, read: CommandLineFiles.contentsIfPresent) } catch {
            throw CommandLineFileError.damaged("world base", folder, error)
        }
    }
}
