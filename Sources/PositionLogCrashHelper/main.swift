// Test helper for PositionLogTests' crash test: appends the fixes it reads from standard input
// (one JSON `Location` per line) to the position log at the path given as the argument, and
// after each append prints the 0-based index of the fix, so the test knows which fixes the log
// acknowledged before it sends SIGKILL. With `--sync N` the log fsyncs every N points. At the
// end of its input it waits for the kill rather than exiting, so every run ends in SIGKILL.
import Foundation
import GeoCore
import Positioning
import SystemIO

let arguments = Array(CommandLine.arguments.dropFirst())
guard let path = arguments.first else {
    try? FileDescriptor.standardError.writeAll("usage: PositionLogCrashHelper LOG.gpx [--sync N]\n")
    exit(2)
}
var options = PositionLog.Options(creator: "PositionLogCrashHelper")
if arguments.count == 3, arguments[1] == "--sync", let n = Int(arguments[2]) {
    options.sync = .everyPoints(n)
}
do {
    let log = try PositionLog(url: URL(fileURLWithPath: path), options: options)
    let decoder = JSONDecoder()
    var index = 0
    while let line = readLine() {
        try log.append(try decoder.decode(Location.self, from: Data(line.utf8)))
        // Unbuffered: the acknowledgement must not get ahead of (or lag behind) the write.
        try FileDescriptor.standardOutput.writeAll("\(index)\n")
        index += 1
    }
    while true { pause() }
} catch {
    try? FileDescriptor.standardError.writeAll("\(error)\n")
    exit(1)
}
