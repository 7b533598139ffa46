//! Directory trees for `ext install`: the recursive copy, the symlink
//! containment check, and directory-name validation.
//!
//! Symlink policy: links are copied as links (never followed), and every
//! link in an installed tree, copied or cloned, must resolve inside the
//! extension directory. A link with an absolute target, or one whose target
//! leaves the directory once the links it passes through are resolved, makes
//! the install fail (and be rolled back). That way nothing is installed that
//! lets a later write through the tree land outside `$ZOT_HOME/extensions`.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::cli::select::{Pick, Selection};

/// Why a tree could not be copied or accepted.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// A file-system operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was attempted.
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A FIFO, socket or device.
    #[error("{0}: not a regular file, directory or symbolic link; remove it from the source and try again")]
    Unsupported(PathBuf),
    /// A symlink leaving the extension directory.
    #[error("{}", symlink_escape_text(link, target, via.as_deref(), venv.as_deref()))]
    SymlinkEscape {
        /// The link whose target leaves, relative to the extension directory.
        link: PathBuf,
        /// Its target as stored.
        target: PathBuf,
        /// The link the walk met and its target, when it only leads
        /// through `link` (boxed: the error stays small, as a `Result`'s
        /// error should, where paths are larger, on Windows).
        via: Option<Box<(PathBuf, PathBuf)>>,
        /// The Python virtual environment holding `link`, if any.
        venv: Option<PathBuf>,
    },
}

fn symlink_escape_text(
    link: &Path,
    target: &Path,
    via: Option<&(PathBuf, PathBuf)>,
    venv: Option<&Path>,
) -> String {
    let mut t = format!(
        "symbolic link {} -> {} points outside the extension directory",
        link.display(),
        target.display()
    );
    if let Some((via, first)) = via {
        t += &format!(
            " (reached through {} -> {})",
            via.display(),
            first.display()
        );
    }
    match venv {
        // A venv links its interpreter to the Python it was made with, so
        // it cannot be copied as is; the docs say how to ship one.
        Some(v) => {
            t += &format!(
            "; {} is a Python virtual environment, which links to the Python it was made from: \
             recreate it with `python3 -m venv --copies {}` (docs/ship/python.md), or leave it out \
             (.zotignore) and create it after installing",
            v.display(),
            v.display()
        )
        }
        None => t += "; make it relative and inside the extension, or remove it",
    }
    t
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> TreeError {
    let path = path.to_owned();
    move |source| TreeError::Io { what, path, source }
}

/// An entry [`copy_tree`] left out, relative to the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// The path, relative to the source folder.
    pub path: PathBuf,
    /// Whether it is a folder (with everything in it).
    pub dir: bool,
}

/// Copies the directory `src` to the new directory `dst` recursively,
/// leaving out what `select` leaves out (nothing without one); returns what
/// was left out. Symlinks are recreated as links with the same target;
/// regular files keep their permissions.
pub fn copy_tree(
    src: &Path,
    dst: &Path,
    select: Option<&Selection>,
) -> Result<Vec<LeftOut>, TreeError> {
    let mut left = Vec::new();
    copy_dir(src, dst, Path::new(""), select, &mut left)?;
    Ok(left)
}

fn copy_dir(
    src: &Path,
    dst: &Path,
    rel: &Path,
    select: Option<&Selection>,
    left: &mut Vec<LeftOut>,
) -> Result<(), TreeError> {
    fs::create_dir(dst).map_err(io("create", dst))?;
    let rd = fs::read_dir(src).map_err(io("read", src))?;
    let mut entries: Vec<fs::DirEntry> = rd.collect::<Result<_, _>>().map_err(io("read", src))?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let from = entry.path();
        let to = dst.join(entry.file_name());
        let here = rel.join(entry.file_name());
        // `file_type` does not follow symlinks.
        let ft = entry.file_type().map_err(io("inspect", &from))?;
        if select.is_some_and(|s| s.pick(&here) == Pick::Leave) {
            left.push(LeftOut {
                path: here,
                dir: ft.is_dir(),
            });
            continue;
        }
        if ft.is_symlink() {
            let target = fs::read_link(&from).map_err(io("read link", &from))?;
            symlink(&target, &to).map_err(io("create link", &to))?;
        } else if ft.is_dir() {
            copy_dir(&from, &to, &here, select, left)?;
        } else if ft.is_file() {
            fs::copy(&from, &to).map_err(io("copy", &from))?;
            crate::cli::test_hook::pause("copy");
        } else {
            return Err(TreeError::Unsupported(from));
        }
    }
    let perms = fs::metadata(src).map_err(io("inspect", src))?.permissions();
    fs::set_permissions(dst, perms).map_err(io("set permissions of", dst))?;
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    // Windows needs to know the kind; the check afterwards still applies.
    let resolved = link.parent().map(|p| p.join(target));
    if resolved.is_some_and(|p| p.is_dir()) {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

/// Fails on the first symlink under `root` that leaves `root` (entries in
/// name order, so the same tree always gets the same error). The error
/// names the link whose own target leaves, which is not always the link
/// the walk met: `.venv/bin/python3 -> python` is inside, the
/// `python -> /usr/bin/python3` it leads through is not.
pub fn check_symlinks(root: &Path) -> Result<(), TreeError> {
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        let mut entries = fs::read_dir(&dir)
            .map_err(io("read", &dir))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(io("read", &dir))?;
        entries.sort_by_key(|e| e.file_name());
        let mut subdirs = Vec::new();
        for entry in entries {
            let path = entry.path();
            let ft = entry.file_type().map_err(io("inspect", &path))?;
            if ft.is_symlink() {
                let rel = path.strip_prefix(root).unwrap_or(&path).to_owned();
                if let Some(e) = escape(root, &rel) {
                    return Err(TreeError::SymlinkEscape {
                        venv: venv_of(root, &e.link),
                        via: (e.link != rel).then(|| {
                            let first = fs::read_link(&path).unwrap_or_default();
                            Box::new((rel.clone(), first))
                        }),
                        link: e.link,
                        target: e.target,
                    });
                }
            } else if ft.is_dir() {
                subdirs.push(path);
            }
        }
        // Popped in name order.
        stack.extend(subdirs.into_iter().rev());
    }
    Ok(())
}

/// The virtual environment (a folder with `pyvenv.cfg`) that holds `rel`,
/// relative to `root`.
fn venv_of(root: &Path, rel: &Path) -> Option<PathBuf> {
    rel.ancestors()
        .skip(1)
        .find(|a| root.join(a).join("pyvenv.cfg").is_file())
        .map(Path::to_owned)
}

/// The link that makes a symlink leave its tree, as [`escape`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// The link whose own target leaves, relative to the root.
    pub link: PathBuf,
    /// Its target as stored.
    pub target: PathBuf,
}

/// Whether the symlink at `root/rel` resolves outside `root`, naming the
/// link on the way whose target leaves: the one with an absolute target, or
/// whose `..` climbs above `root` (for a loop, the link it started from).
/// Resolution is physical: links met on the way (inside the tree) are
/// followed, so `..` after a link climbs from where the link leads.
/// Absolute targets escape. More than 40 links on the way count as
/// escaping (a loop).
pub fn escape(root: &Path, rel: &Path) -> Option<Escape> {
    // The links followed so far (relative path, target), and the physical
    // location as components below `root`.
    let mut followed: Vec<(PathBuf, PathBuf)> = Vec::new();
    let culprit = |followed: &[(PathBuf, PathBuf)], i: usize| {
        followed.get(i).map(|(link, target)| Escape {
            link: link.clone(),
            target: target.clone(),
        })
    };
    let whole = Some(Escape {
        link: rel.to_owned(),
        target: fs::read_link(root.join(rel)).unwrap_or_default(),
    });
    let mut at: Vec<OsString> = Vec::new();
    // Parts still to walk, each with the followed link it came from
    // (`usize::MAX`: from `rel` itself).
    let mut todo: VecDeque<(OsString, usize)> = VecDeque::new();
    // Walk to the link's parent, then follow the link itself.
    let comps: Vec<Component<'_>> = rel.components().collect();
    for (i, c) in comps.iter().enumerate() {
        match c {
            Component::Normal(n) if i + 1 < comps.len() => at.push(n.to_os_string()),
            Component::Normal(n) => todo.push_back((n.to_os_string(), usize::MAX)),
            _ => return whole,
        }
    }
    while let Some((part, from)) = todo.pop_front() {
        if part == ".." {
            if at.pop().is_none() {
                return culprit(&followed, from).or(whole);
            }
            continue;
        }
        if part == "." || part.is_empty() {
            continue;
        }
        at.push(part);
        let here: PathBuf = at.iter().fold(root.to_owned(), |p, c| p.join(c));
        let is_link = fs::symlink_metadata(&here).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            continue;
        }
        if followed.len() >= 40 {
            return whole;
        }
        let Ok(target) = fs::read_link(&here) else {
            return whole;
        };
        let link: PathBuf = at.iter().collect();
        followed.push((link, target.clone()));
        let me = followed.len() - 1;
        at.pop();
        let mut parts = Vec::new();
        for c in target.components() {
            match c {
                Component::Normal(n) => parts.push(n.to_os_string()),
                Component::ParentDir => parts.push("..".into()),
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => return culprit(&followed, me),
            }
        }
        for p in parts.into_iter().rev() {
            todo.push_front((p, me));
        }
    }
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn escapes(root: &Path, rel: &Path) -> bool {
        escape(root, rel).is_some()
    }

    #[test]
    fn symlinks_resolve_physically() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("file"), "x").unwrap();
        symlink("../../file", root.join("a/b/up")).unwrap();
        assert!(!escapes(root, Path::new("a/b/up")));
        symlink("../../..", root.join("a/b/out")).unwrap();
        assert!(escapes(root, Path::new("a/b/out")));
        symlink("/etc/passwd", root.join("abs")).unwrap();
        assert!(escapes(root, Path::new("abs")));
        // `c` leads to the root; `c/..` is then above it, although the
        // lexical reading of `a/b/c/..` stays inside.
        symlink("../..", root.join("a/b/c")).unwrap();
        assert!(!escapes(root, Path::new("a/b/c")));
        symlink("c/../x", root.join("a/b/via")).unwrap();
        assert!(escapes(root, Path::new("a/b/via")));
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        assert!(escapes(root, Path::new("loop1")));
        // Dangling but inside is fine.
        symlink("missing", root.join("dangling")).unwrap();
        assert!(!escapes(root, Path::new("dangling")));
        let err = check_symlinks(root).unwrap_err();
        assert!(matches!(err, TreeError::SymlinkEscape { .. }), "{err}");
    }

    #[test]
    fn the_error_names_the_link_that_leaves() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        // A venv's layout: aliases inside, the interpreter link outside.
        fs::create_dir_all(root.join(".venv/bin")).unwrap();
        fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        symlink("python", root.join(".venv/bin/a-python")).unwrap();
        symlink("/usr/bin/python3", root.join(".venv/bin/python")).unwrap();
        let e = escape(root, Path::new(".venv/bin/a-python")).unwrap();
        assert_eq!(e.link, Path::new(".venv/bin/python"));
        assert_eq!(e.target, Path::new("/usr/bin/python3"));
        let err = check_symlinks(root).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "symbolic link .venv/bin/python -> /usr/bin/python3 points outside the extension directory \
                 (reached through .venv/bin/a-python -> python); .venv is a Python virtual environment"
            ),
            "{err}"
        );
        assert!(err.contains("python3 -m venv --copies .venv"), "{err}");
        // `..` that climbs out is charged to the link whose target holds it.
        fs::create_dir_all(root.join("x/sub")).unwrap();
        symlink("..", root.join("x/sub/up")).unwrap();
        symlink("up/../../..", root.join("x/sub/via")).unwrap();
        let e = escape(root, Path::new("x/sub/via")).unwrap();
        assert_eq!(e.link, Path::new("x/sub/via"));
    }

    #[test]
    fn copy_keeps_links_as_links() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        fs::create_dir_all(src.join("sub")).unwrap();
        fs::write(src.join("sub/f"), "data").unwrap();
        symlink("sub/f", src.join("l")).unwrap();
        let dst = t.path().join("dst");
        assert!(copy_tree(&src, &dst, None).unwrap().is_empty());
        assert_eq!(fs::read_to_string(dst.join("sub/f")).unwrap(), "data");
        assert!(fs::symlink_metadata(dst.join("l"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_link(dst.join("l")).unwrap(), Path::new("sub/f"));
        check_symlinks(&dst).unwrap();
    }
}
