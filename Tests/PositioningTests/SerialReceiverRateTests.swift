import Foundation
import Testing
import NMEACodec
import Positioning
#if canImport(Glibc)
import Glibc
#endif

// Issue 33, item 7 for serial receivers: significant changes (seed 000) ask a serial NMEA
// receiver to compute fewer fixes — UBX-CFG-RATE for u-blox, PMTK220 for MediaTek — and set it
// back to one fix a second when positioning stops. The receiver is the slave side of a
// pseudo-terminal; the test reads on the master side exactly the bytes the source wrote.

/// UBX-CFG-RATE with measRate 1000 ms, navRate 1, timeRef GPS: the frame u-blox's manual and
/// tools (u-center, gpsd's ubxtool) write for 1 Hz.
private let ubxOneSecond: [UInt8] = [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0xE8, 0x03, 0x01, 0x00, 0x01, 0x00, 0x01, 0x39]
/// The same for 60 s (measRate 60000 = 0xEA60), its Fletcher checksum 0x60 0x8C.
private let ubxSixtySeconds: [UInt8] = [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0x60, 0xEA, 0x01, 0x00, 0x01, 0x00, 0x60, 0x8C]

@Test func receiverRateCommands_areTheManualsFrames_andClampToEachProtocolsRange() {
    #expect(ReceiverRate.ubxCFGRate(interval: .seconds(1)) == ubxOneSecond)
    #expect(ReceiverRate.ubxCFGRate(interval: .seconds(60)) == ubxSixtySeconds)
    #expect(String(decoding: ReceiverRate.pmtk220(interval: .seconds(1)), as: UTF8.self) == "$PMTK220,1000*1F\r\n")
    #expect(String(decoding: ReceiverRate.pmtk220(interval: .milliseconds(200)), as: UTF8.self) == "$PMTK220,200*2C\r\n")
    // MTK receivers take at most 10 s; u-blox ones up to 65.535 s.
    #expect(String(decoding: ReceiverRate.pmtk220(interval: .seconds(60)), as: UTF8.self) == "$PMTK220,10000*2F\r\n")
    #expect(Array(ReceiverRate.ubxCFGRate(interval: .seconds(3_600))[6...7]) == [0xFF, 0xFF])
    #expect(Array(ReceiverRate.ubxCFGRate(interval: .zero)[6...7]) == [25, 0], "25 ms, u-blox's shortest period")
}

#if os(Linux) // a Linux pseudo-terminal stands in for the serial receiver
/// Reads `count` bytes from `fd`, waiting at most 60 s in all (the writer is the source's task,
/// so this never blocks a thread of the cooperative pool: it polls without waiting and sleeps).
private func readFromMaster(_ fd: Int32, count: Int) async -> [UInt8] {
    var out: [UInt8] = []
    let deadline = ContinuousClock.now + .seconds(60)
    while out.count < count, ContinuousClock.now < deadline {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 0) == 1 else {
            try? await Task.sleep(for: .milliseconds(10))
            continue
        }
        var buffer = [UInt8](repeating: 0, count: count - out.count)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 { out += buffer.prefix(n) }
    }
    return out
}

/// Runs `body` with the master side of a new pseudo-terminal and the path of its slave side
/// (the "serial receiver" a source opens). Linux's `/dev/ptmx` with the `TIOCSPTLCK` (unlock)
/// and `TIOCGPTN` (slave number) ioctls, whose `_IOW` / `_IOR` macros Swift does not import:
/// their values are those of every Linux architecture with the generic ioctl encoding.
private func withPseudoTerminal(_ body: (Int32, String) async throws -> Void) async throws {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    try #require(master >= 0, "a pseudo-terminal is available")
    defer { close(master) }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0 && ioctl(master, UInt(0x8004_5430), &number) == 0)
    try await body(master, "/dev/pts/\(number)")
}

/// What the source sends to set one fix a second again: `ubxOneSecond` and PMTK220 at 1000 ms.
private let oneSecond = ubxOneSecond + Array("$PMTK220,1000*1F\r\n".utf8)

@Test func significantChanges_setASerialReceiverToOneFixAMinute_andBackToOneASecondOnStop() async throws {
    try await withPseudoTerminal { master, device in
        let manager = PositioningManager(source: NMEASource(.serial(path: device, baud: 9_600)))
        #expect(await manager.start(.significantChanges))
        let slow = ubxSixtySeconds + Array("$PMTK220,10000*2F\r\n".utf8)
        #expect(await readFromMaster(master, count: slow.count) == slow, "60 s to a u-blox receiver, MTK's longest 10 s to an MTK one")
        await manager.stop()
        #expect(await readFromMaster(master, count: oneSecond.count) == oneSecond, "one fix a second again after stop")
    }
}

@Test func desiredAccuracyOfHundredMeters_setsASerialReceiverToAFixEveryFiveSeconds() async throws {
    try await withPseudoTerminal { master, device in
        let manager = PositioningManager(source: NMEASource(.serial(path: device, baud: 9_600)))
        try await manager.setDesiredAccuracy(.accuracyHundredMeters)
        #expect(await manager.start())
        // measRate 5000 ms = 0x1388, checksum 0xB1 0x49.
        let five: [UInt8] = [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0x88, 0x13, 0x01, 0x00, 0x01, 0x00, 0xB1, 0x49]
            + Array("$PMTK220,5000*1B\r\n".utf8)
        #expect(await readFromMaster(master, count: five.count) == five)
        await manager.stop()
        #expect(await readFromMaster(master, count: oneSecond.count) == oneSecond)
    }
}
#endif
