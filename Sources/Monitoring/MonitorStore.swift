public import Foundation
import GeoCore
import SystemIO

/// One monitor's conditions and states on disk: `<directory>/<name>.monitor`, JSON lines, one
/// ``MonitorRecord`` a line.
///
/// Every save replaces the whole file atomically and durably (``AtomicFileReplacement``: a
/// temporary file, fsync, rename, fsync of the directory), so a process killed at any moment
/// (kill -9, power loss) leaves either the old file or the new one. A file damaged otherwise (by
/// hand, by a disk) is read line by line: every line that decodes is kept, every other one is
/// reported with its line number.
public struct MonitorStore: Sendable {
    /// The store file's path.
    public let path: String

    /// The store of monitor `name` in `directory`, which is created if missing.
    /// - Throws: `MonitoringError.invalidIdentifier` for a name that is empty, starts with `.`
    ///   or holds `/`; `.io` when the directory cannot be made.
    public init(name: String, directory: URL) throws(MonitoringError) {
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/") else {
            throw MonitoringError(.invalidIdentifier, "a monitor name must be non-empty, without '/' and not start with '.', got '\(name)'")
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw MonitoringError(.io, "cannot create the store directory: \(error.localizedDescription)", at: directory.path)
        }
        path = directory.appendingPathComponent(name + ".monitor").path
    }

    /// The records stored, and a problem for every line that could not be read back.
    /// - Throws: `MonitoringError.io` when the file exists but cannot be read.
    public func load() throws(MonitoringError) -> (records: [MonitorRecord], problems: [MonitoringError]) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], []) }
        let bytes: [UInt8]
        do { bytes = try FileDescriptor.readContents(of: path) } catch {
            throw MonitoringError(.io, "\(error)", at: path)
        }
        var records: [MonitorRecord] = [], problems: [MonitoringError] = [], seen: Set<String> = []
        let decoder = JSONDecoder()
        for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            do {
                let record = try decoder.decode(MonitorRecord.self, from: Data(line))
                guard !record.lastEvent.identifier.isEmpty, seen.insert(record.lastEvent.identifier).inserted else {
                    problems.append(MonitoringError(.corruptedStore, "an empty or repeated identifier", at: "\(path):\(number + 1)"))
                    continue
                }
                records.append(record)
            } catch {
                problems.append(MonitoringError(.corruptedStore, Self.explain(error), at: "\(path):\(number + 1)"))
            }
        }
        return (records, problems)
    }

    /// Replaces the stored records with `records`, atomically and durably.
    public func save(_ records: some Sequence<MonitorRecord>) throws(MonitoringError) {
        let encoder = JSONEncoder.stable()
        var bytes: [UInt8] = []
        for record in records {
            // Every record encodes: its numbers are finite (validated conditions, fix times).
            guard let line = try? encoder.encode(record) else { continue }
            bytes += line
            bytes.append(0x0A)
        }
        do { try AtomicFileReplacement.write(bytes, to: path) } catch {
            throw MonitoringError(.io, "\(error)", at: path)
        }
    }

    private static func explain(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): c.debugDescription
        case DecodingError.keyNotFound(let key, _): "missing '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c): c.debugDescription
        default: "\(error)"
        }
    }
}
