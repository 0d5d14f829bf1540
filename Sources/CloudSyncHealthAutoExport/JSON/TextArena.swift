package import CloudSyncModel
/// Storage for text the reader makes (unescaped strings, numbers and names it writes): blocks that
/// never move, so views into them stay valid until `reset()`, which keeps the blocks for the next
/// point. Almost every string of a real file has no escape and is a view of the input instead.
package final class TextArena {
    private static let blockSize = 64 * 1024
    private var blocks: [UnsafeMutableRawBufferPointer] = []
    private var current = 0
    private var used = 0

    package init() {}

    deinit { for block in blocks { block.deallocate() } }

    func reset() {
        current = 0
        used = 0
    }

    /// Room for `count` bytes, filled by `body`, which returns how many it wrote.
    func write(upTo count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) -> ByteText {
        let start = reserve(count)
        let written = body(start)
        used += written
        return ByteText(start: start, count: written)
    }

    func copy(_ bytes: ByteText) -> ByteText {
        write(upTo: bytes.count) { out in
            if let base = bytes.baseAddress, bytes.count > 0 { out.update(from: base, count: bytes.count) }
            return bytes.count
        }
    }

    package func copy(_ string: String) -> ByteText {
        var string = string
        return string.withUTF8 { copy($0) }
    }

    private func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if current < blocks.count, used + count <= blocks[current].count {
            return blocks[current].baseAddress!.assumingMemoryBound(to: UInt8.self) + used
        }
        // The next block that is large enough, or a new one.
        if current < blocks.count { current += 1 }
        while current < blocks.count, blocks[current].count < count { current += 1 }
        if current >= blocks.count {
            blocks.append(.allocate(byteCount: max(Self.blockSize, count), alignment: 8))
            current = blocks.count - 1
        }
        used = 0
        return blocks[current].baseAddress!.assumingMemoryBound(to: UInt8.self)
    }
}
