#if FUZZING
import CLibFuzzer
#endif
import Foundation

/// The entry point of a fuzz executable. Built by scripts/fuzz.sh (-sanitize=fuzzer -DFUZZING) it
/// hands the command line to libFuzzer; in a normal build it replays the files it is given.
public enum FuzzMain {
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    public static func run(_ callback: Callback, replaying target: (UnsafeRawBufferPointer) -> Void) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
        #else
        FuzzReplay.main(target)
        exit(0)
        #endif
    }
}
