import Foundation
import GeoBase
import GeoTestSupport
import SystemIO
import Testing

// What a command-line program tells of a failed line read, and bytes written to its output path.

@Test func lineReadError_describedReadingStandardInput_inSystemIOWording() {
    let long = LineReadError(.lineTooLong, line: 2, capacity: 16)
    #expect(long.described(reading: "standard input") == "line 2 is longer than 16 bytes in standard input")
    let failed = LineReadError(.readFailed, line: 1, capacity: 16, underlying: SystemIOError(.ioFailure, "read", errno: EISDIR))
    #expect(failed.described(reading: "standard input") == "cannot read line 1 of standard input: Is a directory")
}

@Test func standardOutput_writeBytesToPath_replacesTheFileWhole() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("out.bin").path
        let out = StandardOutput(program: "test")
        try out.write([1, 2, 3], to: path)
        #expect(try FileDescriptor.readContents(of: path) == [1, 2, 3])
        try out.write([4], to: path)
        #expect(try FileDescriptor.readContents(of: path) == [4])
    }
}
