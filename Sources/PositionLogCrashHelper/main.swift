// Test helper for PositionLogTests' crash tests: appends the fixes it reads from standard input
// (one JSON `Location` per line) to the position log at the path given as the argument
// (continuing the file when it exists, as a rejoined session does), and after each append
// prints the 0-based index of the fix, so the test knows which fixes the log acknowledged
// before it sends SIGKILL. With `--sync N` the log fsyncs every N points; with
// `--segment-every N` it starts a new `<trkseg>` after every N fixes (as after a loss of
// position). At the end of its input it waits for the kill rather than exiting, so every run
// ends in SIGKILL.
import Foundation
import GeoCore
import Positioning
import SystemIO

let usage = "usage: PositionLogCrashHelper LOG.gpx [--sync N] [--segment-every N]\n"
var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    try? FileDescriptor.standardError.writeAll(usage)
    exit(2)
}
let path = arguments.removeFirst()
var options = PositionLog.Options(creator: "PositionLogCrashHelper")
var segmentEvery: Int?
while arguments.count >= 2, let n = Int(arguments[1]), n > 0 {
    switch arguments[0] {
    case "--sync": options.sync = .everyPoints(n)
    case "--segment-every": segmentEvery = n
    default:
        try? FileDescriptor.standardError.writeAll(usage)
        exit(2)
    }
    arguments.removeFirst(2)
}
guard arguments.isEmpty else {
    try? FileDescriptor.standardError.writeAll(usage)
    exit(2)
}
do {
    let log = try PositionLog(url: URL(fileURLWithPath: path), options: options)
    let decoder = JSONDecoder()
    var index = 0
    while let line = readLine() {
        if let segmentEvery, index > 0, index % segmentEvery == 0 { try log.beginSegment() }
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
