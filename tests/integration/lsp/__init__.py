"""Pinned yaml-language-server (package.json + lock) and a stdio LSP client for the editor tests."""
