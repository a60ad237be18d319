public import Foundation
import Synchronization

/// What every example shares: the shared data folder, a heading per sample, and checks of the
/// behaviour a seed document states. A check that fails is printed as `FAIL:` and makes the
/// process exit with status 1 at `finish()`, so CI (scripts/examples.sh) fails when a sample's
/// documented behaviour does not happen.
public enum Example {
    private static let failures = Mutex(0)

    /// The shared real-world data: `LOCATIONKIT_DATA`, else `../shared/data` beside the package
    /// (the root found from this file's compile-time path), as the tests read it.
    public static var dataRoot: URL {
        if let env = ProcessInfo.processInfo.environment["LOCATIONKIT_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() // Support, Examples, package
            .deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }

    /// The data file at `relativePath` under `dataRoot`. An example never skips: a missing file
    /// is a failure that ends the run with status 1.
    public static func data(_ relativePath: String) -> URL {
        let url = dataRoot.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("FAIL: shared data file \(url.path) is missing (set LOCATIONKIT_DATA)")
            exit(1)
        }
        return url
    }

    /// Prints the title of the next sample.
    public static func sample(_ title: String) {
        print("\n== \(title)")
        fflush(nil) // every output stream: a CI log shows each sample as it runs
    }

    /// Checks one documented behaviour: prints `ok:` or `FAIL:` with `what`.
    public static func expect(_ condition: Bool, _ what: @autoclosure () -> String) {
        if condition {
            print("  ok: \(what())")
        } else {
            failures.withLock { $0 += 1 }
            print("  FAIL: \(what())")
        }
        fflush(nil) // every output stream: a CI log shows each sample as it runs
    }

    /// Reports an error a sample threw as a failed check.
    public static func fail(_ what: String) { expect(false, what) }

    /// Ends the run: status 0 when every check held, else 1.
    public static func finish() -> Never {
        let count = failures.withLock { $0 }
        print(count == 0 ? "\nall documented behaviour seen" : "\n\(count) documented behaviour(s) not seen")
        exit(count == 0 ? 0 : 1)
    }
}
