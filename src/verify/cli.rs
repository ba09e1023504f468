//! `labelpress token ...`: administration through the admin API.
