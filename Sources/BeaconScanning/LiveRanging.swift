import Synchronization
public import Platform

extension BeaconRanger {
    /// Ranges a live scan (`geo beacons --source bluez:`): records every sighting `scanner`
    /// delivers and, every `interval` of wall time, reports the beacons in range then (as
    /// ``beacons(at:)`` ranges them), `reports` times or until the task is cancelled, unless the
    /// scan fails first.
    /// - Returns: the scan's error when it failed (BlueZ absent, access denied, the adapter
    ///   gone), else nil.
    public func range(_ scanner: some BeaconScanner, every interval: Duration, reports: Int,
                      report: @escaping @Sendable (Date, [RangedBeacon]) -> Void) async -> (any Error)? {
        let state = SharedRanger(self)
        return await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    for try await sighting in scanner.sightings() { state.ranger.withLock { $0.record(sighting) } }
                    return nil
                } catch {
                    return error
                }
            }
            group.addTask {
                for _ in 0..<reports {
                    do { try await Task.sleep(for: interval) } catch { return nil }
                    let now = Date()
                    report(now, state.ranger.withLock { $0.beacons(at: now) })
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// A live scan's ranger, shared by the task that records sightings and the one that reports.
private final class SharedRanger: Sendable {
    let ranger: Mutex<BeaconRanger>
    init(_ ranger: BeaconRanger) { self.ranger = Mutex(ranger) }
}
