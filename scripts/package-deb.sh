#!/usr/bin/env bash
# Builds dist/cloudsync_<version>_<arch>.deb on a machine with Swift, for machines without it:
#   /usr/bin/cloudsync                    built with --static-swift-stdlib (the Swift runtime and
#                                         Foundation inside; the C libraries stay shared)
#   /usr/share/man/man1/cloudsync*.1.gz   a page per command, by ArgumentParser's generate-manual
#   bash, zsh and fish completions        from `cloudsync --generate-completion-script`
#   /usr/share/doc/cloudsync/             copyright, changelog.gz
# The version comes from one place, the `version:` of Sources/cloudsync/CloudSync.swift, read back
# from the built binary; packaging/changelog's top entry must name the same version.
# Depends: is computed by dpkg-shlibdeps from the binary, so it cannot drift from what is linked.
# Prints the path of the .deb on stdout; everything else goes to stderr. docs/packaging.md has more.
set -euo pipefail
umask 022    # every file in the package readable by all, whatever the builder's umask
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scratch=.build-deb    # its own build folder: the static link must not replace .build/release's binary
say() { echo "package-deb: $*" >&2; }
fail() { say "$*"; exit 1; }
for tool in swift dpkg-deb dpkg-shlibdeps dpkg-parsechangelog readelf strip gzip; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/install-system-packages.sh installs dpkg-dev and binutils)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The binary, with the Swift runtime linked statically.
say "building cloudsync with the Swift runtime linked statically"
# --disable-local-rpath: no RUNPATH $ORIGIN, which would let a library beside /usr/bin/cloudsync
# stand in for the system's.
swift build -c release --static-swift-stdlib --disable-local-rpath --scratch-path "$scratch" --product cloudsync >&2
binary="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/cloudsync"
if readelf -d "$binary" | grep NEEDED | grep -Ei 'swift|Foundation|dispatch|BlocksRuntime'; then
    fail "$binary still needs the Swift runtime's shared libraries (above)"
fi

# 2. Man pages, by generate-manual, the tool behind ArgumentParser's generate-manual plugin, from
#    this binary's command definitions (--experimental-dump-help). The tool is built from the very
#    ArgumentParser checkout the binary uses. Not the plugin itself: it builds the whole package
#    again without --static-swift-stdlib (which a plugin cannot ask for), and that flag changes the
#    compile, so its build compiled every module again (still going after 10 minutes when stopped).
say "building generate-manual"
# A fixed folder for its source: the files keep their commit's times, so a second run builds nothing.
tool_source="$scratch/generate-manual-source" manuals="$work/manuals"
commit=$(git -C "$scratch/checkouts/swift-argument-parser" rev-parse HEAD)
if [[ $(cat "$tool_source/.commit" 2>/dev/null) != "$commit" ]]; then
    rm -rf "$tool_source" && mkdir -p "$tool_source"
    git -C "$scratch/checkouts/swift-argument-parser" archive HEAD | tar -x -C "$tool_source"
    echo "$commit" > "$tool_source/.commit"
fi
mkdir -p "$manuals"
swift build --package-path "$tool_source" --scratch-path "$scratch/generate-manual" -c release --product generate-manual >&2
"$(swift build --package-path "$tool_source" --scratch-path "$scratch/generate-manual" -c release --show-bin-path)/generate-manual" \
    "$binary" --multi-page --output-directory "$manuals" \
    --date "$(date -u -d "$(dpkg-parsechangelog -l packaging/changelog -S Date)" +%Y-%m-%d)" \
    --authors "CloudSync developers<dev@cloudsync.invalid>" >&2
[[ -f $manuals/cloudsync.1 ]] || fail "generate-manual wrote no cloudsync.1"

version=$("$binary" --version)
changelog_version=$(dpkg-parsechangelog -l packaging/changelog -S Version)
[[ $version == "$changelog_version" ]] ||
    fail "cloudsync --version says $version but packaging/changelog's top entry is $changelog_version: add an entry"
arch=$(dpkg --print-architecture)
name="cloudsync_${version}_${arch}"

# 3. The tree the package installs.
root="$work/debian/cloudsync"    # the layout dpkg-shlibdeps expects: debian/control beside it
install -D -m 0755 "$binary" "$root/usr/bin/cloudsync"
# Symbols stay (a crash's backtrace names functions); only the debug info goes: 4× smaller.
strip --strip-debug --remove-section=.comment --remove-section=.note "$root/usr/bin/cloudsync"

install -d "$root/usr/share/man/man1"
for page in "$manuals"/*.1; do
    # A blank line in a command's discussion comes out as a blank mdoc line, which groff warns
    # about ("Empty input line"); .Pp is mdoc's paragraph break.
    sed 's/^$/.Pp/' "$page" | gzip -9n > "$root/usr/share/man/man1/$(basename "$page").gz"
    # generate-manual names a command's page cloudsync.convert; cloudsync-convert, as git's pages
    # are named, opens the same page.
    if [[ $(basename "$page") == cloudsync.*.1 ]]; then
        ln -s "$(basename "$page").gz" "$root/usr/share/man/man1/$(basename "$page" | sed 's/^cloudsync\./cloudsync-/').gz"
    fi
done

install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
"$binary" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/cloudsync"
"$binary" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_cloudsync"
"$binary" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/cloudsync.fish"

install -d "$root/usr/share/doc/cloudsync"
gzip -9n < packaging/changelog > "$root/usr/share/doc/cloudsync/changelog.gz"
scripts/debian-copyright.sh "$scratch" > "$root/usr/share/doc/cloudsync/copyright"

# 4. Depends: from the libraries the binary links, through the shlibs files of the packages that
#    hold them.
install -d "$root/DEBIAN"
printf 'Source: cloudsync\n\nPackage: cloudsync\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -edebian/cloudsync/usr/bin/cloudsync | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || fail "dpkg-shlibdeps found no dependencies"

sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
    -e "s/@INSTALLED_SIZE@/$(du -sk --exclude=DEBIAN "$root" | cut -f1)/" packaging/control.in > "$root/DEBIAN/control"
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) > "$root/DEBIAN/md5sums"

mkdir -p dist
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l packaging/changelog -S Timestamp) \
    dpkg-deb --root-owner-group -Zxz --build "$root" "dist/$name.deb" >&2
say "Depends: $depends"
say "$(du -h "dist/$name.deb" | cut -f1) dist/$name.deb"
echo "dist/$name.deb"
