#if canImport(Glibc)
public import CloudSyncModel
import Glibc
#endif

/// Top-level elements of the export (`Record`s, `Workout`s, …) with all their descendants, copied out
/// of libxml2's buffers while they stream past, into flat arrays: the nodes, the attributes and the
/// attribute bytes of every element of the batch one after the other. The parser thread fills a batch
/// and hands it to the mapping thread whole, retained once (`MappingStage`): no class instance per
/// element crosses between the threads, and nothing is retained or released per element or
/// attribute. (A tree object per element, reused from a pool, cost the import 4% of its CPU in
/// `swift_retain`/`swift_release` alone, docs/performance.md "Issue 34".)
public final class ElementBatch {
    /// One element: its nodes and its bytes in the batch's arrays.
    struct Span {
        var firstNode, endNode: Int32
        var firstByte, endByte: Int32
        var prepared = PreparedFields.none
    }

    /// Plain memory, not arrays: a view reads them through pointers, so reading an element costs no
    /// reference counting (an array read through the batch retained its buffer each time).
    @exclusivity(unchecked) var nodes = FlatArray<ElementTree.Node>(capacity: 1024)
    @exclusivity(unchecked) var attributes = FlatArray<ElementTree.Attribute>(capacity: 4096)
    @exclusivity(unchecked) var arena = ByteBuffer(capacity: 1 << 16)
    /// Names of elements outside the DTD, by node index in the batch (rare).
    @exclusivity(unchecked) var unknownNames: [Int: String] = [:]
    @exclusivity(unchecked) private(set) var spans: [Span] = []
    /// Where the element being built starts.
    @exclusivity(unchecked) private var open = Span(firstNode: 0, endNode: 0, firstByte: 0, endByte: 0)
    /// The start date of the element prepared last (`PreparedFields`).
    @exclusivity(unchecked) private var previousStart = PreviousStart()

    /// Largest element accepted: a real Workout with inline GPS points stays under a few MB.
    public static let maximumBytes = 64 << 20
    /// A batch that held more than this gives the memory back when it is emptied, so that one huge
    /// element does not stay resident in each of the circulating batches.
    static let retainedBytes = 2 << 20
    static let retainedNodes = 1 << 14

    init() {}

    /// Complete elements in the batch.
    public var count: Int { spans.count }

    /// The `index`th complete element: a view, valid until the batch is emptied.
    public func tree(_ index: Int) -> ElementTree {
        let span = spans[index]
        return ElementTree(batch: self, span: span)
    }

    /// The memory the batch holds: its attribute bytes plus its node and attribute records.
    var footprint: Int {
        arena.count + nodes.count * MemoryLayout<ElementTree.Node>.stride + attributes.count * MemoryLayout<ElementTree.Attribute>.stride
    }

    /// The memory the element being built takes so far.
    var openFootprint: Int {
        arena.count - Int(open.firstByte) + (nodes.count - Int(open.firstNode)) * MemoryLayout<ElementTree.Node>.stride
    }

    // MARK: Building (the parser thread)

    /// A new top-level element starts. (A parse that stops inside an element never begins another:
    /// what it left after the last complete element is in no span, and no consumer sees it.)
    func beginElement() {
        open = Span(firstNode: Int32(nodes.count), endNode: 0, firstByte: Int32(arena.count), endByte: 0)
    }

    /// The element being built is complete.
    func endElement() {
        open.endNode = Int32(nodes.count)
        open.endByte = Int32(arena.count)
        open.prepared = PreparedFields(ElementTree(batch: self, span: open), previous: &previousStart)
        spans.append(open)
    }

    /// The index the next node gets, relative to the element being built.
    var nextNode: Int32 { Int32(nodes.count) - open.firstNode }

    func appendNode(_ node: ElementTree.Node) { nodes.append(node) }

    /// Empties the batch for the next elements, keeping its capacity unless one element made it huge.
    func removeAll() {
        nodes.removeAll(shrinkingAbove: Self.retainedNodes, to: 1024)
        attributes.removeAll(shrinkingAbove: Self.retainedNodes * 4, to: 4096)
        arena.removeAll(shrinkingAbove: Self.retainedBytes, to: 1 << 16)
        if !unknownNames.isEmpty { unknownNames.removeAll() }
        spans.removeAll(keepingCapacity: true)
        open = Span(firstNode: 0, endNode: 0, firstByte: 0, endByte: 0)
    }

    /// Stores an attribute value, as `appendValue` reads it.
    func storeAttributeValue(_ bytes: ByteText) -> (start: Int32, count: Int32) {
        let start = Int32(arena.count)
        Self.appendValue(bytes, to: &arena)
        return (start, Int32(arena.count) - start)
    }

    /// Appends an attribute value as libxml2 hands it over, its entities turned back. With entity
    /// substitution off (as it must stay, see `ExportParser`), libxml2 hands `&amp;` over as the
    /// character reference `&#38;`, and a literal `&#38;` in the file would itself arrive as
    /// `&#38;#38;`; so every `&#38;` here means `&`. A `<` or `>` arrives marked (`EntityMarks`: DEL,
    /// then `lt;` or `gt;`) and is turned back. Values with either are the `device` attribute and
    /// URLs in metadata; the others take one scan (`holdsEntity`) and a copy.
    static func appendValue(_ bytes: ByteText, to out: inout ByteBuffer) {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return }
        guard holdsEntity(base, count) else {
            out.append(bytes)
            return
        }
        // The next `&` and the next mark at or after `i` (count: none), found by `memchr`.
        func next(_ byte: UInt8, from i: Int) -> Int {
            memchr(base + i, Int32(byte), count - i).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count
        }
        var nextAmpersand = next(0x26, from: 0), nextMark = next(EntityMarks.mark, from: 0)
        // The bytes between two entities go in as one run: a byte at a time, the device attribute
        // of every record made this 528 M of the 48 MB import's instructions.
        var i = 0, run = 0
        while true {
            if nextAmpersand < i { nextAmpersand = next(0x26, from: i) }
            if nextMark < i { nextMark = next(EntityMarks.mark, from: i) }
            i = min(nextAmpersand, nextMark)
            guard i < count else { break }
            let byte = base[i]
            let character: UInt8, length: Int
            if byte == 0x26, i + 5 <= count, bytes.slice(i..<(i + 5)).equals("&#38;") {
                (character, length) = (0x26, 5)
            } else if let marked = EntityMarks.character(at: base + i, available: count - i) {
                (character, length) = (marked, 4)
            } else {
                i += 1
                continue
            }
            if i > run { out.append(ByteText(start: base + run, count: i - run)) }
            out.append(character)
            i += length
            run = i
        }
        if count > run { out.append(ByteText(start: base + run, count: count - run)) }
    }

    /// Whether the value holds a `&` or an entity mark, eight bytes at a time. Why not `memchr`:
    /// the values are short (a date, a type's name), and the two calls per value, one for each
    /// byte, were most of `appendValue`'s time (perf on the 1 GB import: `memchr` 1.5% and
    /// `appendValue` 1.6% of its CPU).
    @inline(__always)
    static func holdsEntity(_ base: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let ampersands = ones &* 0x26, marks = ones &* UInt64(EntityMarks.mark)
        // Whether a byte of `v` is zero (exact: no byte is taken for zero when none is).
        @inline(__always) func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if hasZero(word ^ ampersands) || hasZero(word ^ marks) { return true }
            i += 8
        }
        while i < count {
            if base[i] == 0x26 || base[i] == EntityMarks.mark { return true }
            i += 1
        }
        return false
    }
}

/// One top-level element of a batch with its descendants: a view into the batch's arrays (no
/// reference counted, no copy), valid while the consumer is called with it. Node 0 is the element
/// itself; a node's parent is an index in the same element.
public struct ElementTree {
    public struct Node: Sendable {
        public var name: ElementName
        /// Index of the parent node, -1 for the top-level element.
        public var parent: Int32
        var firstAttribute: Int32
        var attributeCount: Int32
        /// Line in the input where the element starts.
        public var line: Int32
    }

    struct Attribute {
        var name: AttributeName
        /// The name as libxml2 interned it (NUL-terminated): valid while the parser lives, which
        /// is always longer than a consumer call. Not copied: that was a `strlen` and a copy per
        /// attribute on the parser thread, the critical path.
        var interned: UnsafePointer<UInt8>
        /// Offset in the batch's bytes.
        var valueStart: Int32
        var valueCount: Int32
    }

    /// The element's nodes and the batch's attributes and bytes, read through pointers: the batch is
    /// kept alive, and not changed, by whoever hands the view out (the mapping stage holds it until
    /// every element is consumed), so a view costs no reference counting.
    let elementNodes: UnsafePointer<Node>
    public let nodeCount: Int
    let allAttributes: UnsafePointer<Attribute>
    let bytes: UnsafePointer<UInt8>
    let firstByte: Int
    let endByte: Int
    /// For the names of elements outside the DTD (rare).
    unowned(unsafe) let batch: ElementBatch
    let firstNode: Int
    /// What the parser thread worked out of the element as it completed (`PreparedFields`).
    let prepared: PreparedFields

    init(batch: ElementBatch, span: ElementBatch.Span) {
        self.batch = batch
        prepared = span.prepared
        firstNode = Int(span.firstNode)
        elementNodes = UnsafePointer(batch.nodes.base + firstNode)
        nodeCount = Int(span.endNode - span.firstNode)
        allAttributes = UnsafePointer(batch.attributes.base)
        bytes = UnsafePointer(batch.arena.storage)
        firstByte = Int(span.firstByte)
        endByte = Int(span.endByte)
    }

    /// Largest element accepted.
    public static var maximumBytes: Int { ElementBatch.maximumBytes }

    public var root: Int { 0 }

    /// The element's nodes, indexed from 0 (the element itself).
    public var nodes: Nodes { Nodes(tree: self) }

    public struct Nodes: RandomAccessCollection {
        let tree: ElementTree
        public var startIndex: Int { 0 }
        public var endIndex: Int { tree.nodeCount }
        public subscript(position: Int) -> Node { tree.elementNodes[position] }
    }

    public func name(_ node: Int) -> ElementName { elementNodes[node].name }

    @inline(__always)
    private func text(_ attribute: Attribute) -> ByteText {
        ByteText(start: bytes + Int(attribute.valueStart), count: Int(attribute.valueCount))
    }

    /// The attribute bytes of the element.
    var byteCount: Int { endByte - firstByte }

    /// The value of attribute `name` on `node`, if present.
    @inline(__always)
    public func value(_ name: AttributeName, of node: Int = 0) -> ByteText? {
        let n = elementNodes[node]
        var i = Int(n.firstAttribute)
        let end = i + Int(n.attributeCount)
        while i < end {
            let attribute = allAttributes[i]
            if attribute.name == name { return text(attribute) }
            i += 1
        }
        return nil
    }

    /// Every attribute of `node` as (name, value) views, in document order.
    public func attributes(of node: Int) -> [(name: ByteText, value: ByteText)] {
        let n = elementNodes[node]
        return (Int(n.firstAttribute)..<Int(n.firstAttribute + n.attributeCount)).map { i in
            let a = allAttributes[i]
            return (ByteText(start: a.interned, count: strlen(a.interned)), text(a))
        }
    }

    /// Calls `body` with each attribute of `node` that the mapping does not read (`.other`), by its
    /// name as libxml2 gave it. Without allocating: today's exports have none, iOS 8's have metadata.
    @inline(__always)
    public func forEachOtherAttribute(of node: Int, _ body: (_ name: ByteText, _ value: ByteText) -> Void) {
        let n = elementNodes[node]
        var i = Int(n.firstAttribute)
        let end = i + Int(n.attributeCount)
        while i < end {
            let a = allAttributes[i]
            if a.name == .other { body(ByteText(start: a.interned, count: strlen(a.interned)), text(a)) }
            i += 1
        }
    }

    /// Indices of the direct children of `node`, in document order.
    public func children(of node: Int) -> [Int] {
        var result: [Int] = []
        var i = node + 1
        while i < nodeCount {
            if elementNodes[i].parent == Int32(node) { result.append(i) }
            i += 1
        }
        return result
    }

    /// Calls `body` with each direct child of `node` named `name`, without allocating.
    @inline(__always)
    public func forEachChild(of node: Int, named name: ElementName, _ body: (Int) throws -> Void) rethrows {
        var i = node + 1
        while i < nodeCount {
            let child = elementNodes[i]
            if child.parent == Int32(node), child.name == name { try body(i) }
            i += 1
        }
    }

    /// The element name as written (for elements outside the DTD).
    func nodeName(_ node: Int) -> String {
        let name = elementNodes[node].name
        return name == .unknown ? (batch.unknownNames[firstNode + node] ?? "?") : name.xmlName
    }
}

/// A growable array of plain values in memory of its own (`nodes`, `attributes` of a batch): a
/// pointer to it stays valid while nothing is appended.
struct FlatArray<Element>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    subscript(index: Int) -> Element {
        get { base[index] }
        set { base[index] = newValue }
    }

    mutating func append(_ element: Element) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: element)
        count += 1
    }

    mutating func removeAll(shrinkingAbove limit: Int, to smaller: Int) {
        base.deinitialize(count: count)
        count = 0
        if capacity > limit {
            base.deallocate()
            base = .allocate(capacity: smaller)
            capacity = smaller
        }
    }
}
