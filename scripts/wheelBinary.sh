# Installs one program shipped as a binary inside a PyPI wheel (uv, ruff): the wheel for this
# machine's architecture is fetched, checked against its pinned sha256, and its binary moved into a
# folder under ~/.cache/graph-planner/ only once it runs, so the folder never holds a half-written one.
# Sourced by scripts/setup-uv.sh and scripts/setup-ruff.sh, which give the pins.
#
# install_wheel_binary NAME VERSION DEST X86_URL X86_SHA256 ARM_URL ARM_SHA256
install_wheel_binary() {
  local name=$1 version=$2 dest=$3 url sha256
  case "$(uname -m)" in
    x86_64) url=$4 sha256=$5 ;;
    aarch64) url=$6 sha256=$7 ;;
    *)
      echo "setup-$name: no pinned $name wheel for $(uname -m); install $name $version yourself" >&2
      return 1
      ;;
  esac
  if [[ -x "$dest/$name" ]] && [[ "$("$dest/$name" --version 2>/dev/null)" == "$name $version"* ]]; then
    return 0
  fi
  local wheel tmp
  wheel="$(basename "$url")"
  tmp="$(mktemp -d)"
  # The trap's variable is expanded now, because a function's locals are gone when the shell exits.
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  echo "setup-$name: fetching $name $version from PyPI into $dest" >&2
  # PIP_INDEX_URL's host serves the same files when it mirrors PyPI; the hash decides either way.
  curl -fsSL --retry 3 -o "$tmp/$wheel" "$url"
  if [[ "$(sha256sum "$tmp/$wheel" | cut -d' ' -f1)" != "$sha256" ]]; then
    echo "setup-$name: $wheel does not have the pinned sha256" >&2
    return 1
  fi
  python3 - "$tmp/$wheel" "$tmp/$name" "$name-$version.data/scripts/$name" <<'PY'
import sys, zipfile
wheel, out, member = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    dst.write(src.read())
PY
  chmod 755 "$tmp/$name"
  "$tmp/$name" --version >/dev/null
  mkdir -p "$dest"
  mv "$tmp/$name" "$dest/$name.tmp" && mv "$dest/$name.tmp" "$dest/$name"
  echo "setup-$name: installed $("$dest/$name" --version) in $dest" >&2
}
