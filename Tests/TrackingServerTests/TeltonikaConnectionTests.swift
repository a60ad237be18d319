import Foundation
import GeoTestSupport
import NIOCore
import NIOEmbedded
import Testing
@testable import TrackingServer

/// `TeltonikaConnection`'s reads, in an `EmbeddedChannel` (its packets: `TeltonikaListenerTests`).
@Suite struct TeltonikaConnectionTests {
    /// Counts the reads asked of the channel (placed before `TeltonikaConnection`, on the socket's side).
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// A connection that cannot write (its device reads none of the acknowledgements) reads no
    /// more until it can: the read asked for meanwhile goes on once it is writable again.
    @Test func notWritable_readsHeldUntilWritableAgain() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            let counter = ReadCounter(), channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandlers([counter, TeltonikaConnection(ingest: ingest)])
            channel.read()
            #expect(counter.reads == 1)
            channel.isWritable = false
            channel.pipeline.fireChannelWritabilityChanged()
            channel.read()
            #expect(counter.reads == 1)
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
            #expect(counter.reads == 2)
            channel.read()
            #expect(counter.reads == 3)
            _ = try channel.finish()
        }
    }
}
