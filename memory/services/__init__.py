"""Writes and recalls on memory networks. Each public function is a service: keyword-only
arguments, one transaction, audited writes (recall's access statistics are bookkeeping)."""
