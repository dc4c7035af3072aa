# Packaging: the hook templates, the man page, the bash completion, and the .deb.
# The executables carry their own install rules (guard/CMakeLists.txt, guard/front/).

# `git guard install` reads its hook templates from <bindir>/../share/git-guard/hooks;
# the build tree mirrors that layout so build/bin/git-guard works before it is installed.
foreach(hook IN ITEMS reference-transaction post-checkout pre-auto-gc)
  if(EXISTS ${CMAKE_SOURCE_DIR}/hooks/${hook})
    configure_file(hooks/${hook} ${CMAKE_BINARY_DIR}/share/git-guard/hooks/${hook} COPYONLY)
    install(PROGRAMS hooks/${hook} DESTINATION ${CMAKE_INSTALL_DATADIR}/git-guard/hooks)
  endif()
endforeach()

# `git guard --help` makes git run `man git-guard`.
install(FILES docs/git-guard.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
# git's own completion loads completions/git-guard when it completes `git guard`.
install(FILES installer/git-guard.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME git-guard)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME git-guard)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "git-guard maintainers <git-guard@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "saves a git worktree's or branch's unsaved work before anything removes it")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# A user needs the programs, not their debug information (as installer/install.sh: --strip).
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_SECTION vcs)
# merge-tree --write-tree, the published-content check, arrived in git 2.38.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "git (>= 1:2.38)")
find_program(GUARD_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GUARD_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
         ", libgit2-1.5, libspdlog1.10, libfmt9, libboost-program-options1.74.0")
endif()
# The system install is offered, never made by default (docs/install.md, "The .deb"):
# postinst makes it when /etc/default/git-guard says SYSTEM_INSTALL=yes; prerm undoes one
# that uses this package's shim, so that /usr/bin/git never names a removed file.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/installer/deb/postinst ${CMAKE_SOURCE_DIR}/installer/deb/prerm
    ${CMAKE_SOURCE_DIR}/installer/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
include(CPack)
