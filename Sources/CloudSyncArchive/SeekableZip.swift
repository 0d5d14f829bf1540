#if canImport(Glibc)
import Glibc
#endif

/// A zip file opened for reading its entries in any order: the descriptor and its central
/// directory, closed together.
package final class SeekableZip {
    package let directory: ZipDirectory
    private let descriptor: Int32

    /// nil when `path` is not a regular file that starts like a zip (standard input, a pipe, an
    /// XML file): those are read as streams.
    package init?(path: String) throws {
        // stat before open: opening a FIFO would block until a writer comes, and closing it again
        // would lose what the writer sent.
        guard path != "-", FileKind(path: path) == .regular else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var magic = [UInt8](repeating: 0, count: 4)
        guard FileKind(descriptor: fd) == .regular, let size = FileKind.size(of: fd),
              pread(fd, &magic, 4, 0) == 4, magic == [0x50, 0x4B, 0x03, 0x04] else {
            close(fd)
            return nil
        }
        do {
            directory = try ZipDirectory(descriptor: fd, fileSize: size, name: path)
        } catch {
            close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
