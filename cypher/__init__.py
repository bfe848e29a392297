"""Cypher text as package data. Files hold named queries; see queries.load."""
